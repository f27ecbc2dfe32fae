package mqtt

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
)

func TestAdmitDirectHold(t *testing.T) {
	resuming := SessionConfig{ClientID: "b1", SessionExpiry: time.Hour}
	ephemeral := SessionConfig{}
	qos := func(qs ...int) ReceiverConfig {
		var c ReceiverConfig
		for i, q := range qs {
			c.Subscriptions = append(c.Subscriptions, SubscriptionConfig{Topic: "t/" + string(rune('a'+i)), QoS: IntPtr(q)})
		}
		return c
	}
	tests := []struct {
		name     string
		session  SessionConfig
		receiver ReceiverConfig
		route    RouteFacts
		wantErrs int
	}{
		{"qos1 on a resuming session", resuming, qos(1), RouteFacts{}, 0},
		{"qos2 on a resuming session", resuming, qos(2), RouteFacts{}, 0},
		{"default qos is 1", resuming, ReceiverConfig{Subscriptions: []SubscriptionConfig{{Topic: "t"}}}, RouteFacts{}, 0},
		{"qos1 on an ephemeral session", ephemeral, qos(1), RouteFacts{HasDLQ: true}, 1},
		{"qos1 with clean start", SessionConfig{ClientID: "b1", SessionExpiry: time.Hour, CleanStart: true}, qos(1), RouteFacts{}, 1},
		{"qos0 with a DLQ on an ephemeral session", ephemeral, qos(0), RouteFacts{HasDLQ: true}, 0},
		{"qos0 with allow_retry_drop", ephemeral, qos(0), RouteFacts{AllowRetryDrop: true}, 0},
		{"qos0 alone", ephemeral, qos(0), RouteFacts{}, 1},
		{"mixed on an ephemeral session", ephemeral, qos(0, 1), RouteFacts{HasDLQ: true}, 1},
		{"mixed on a resuming session", resuming, qos(0, 2), RouteFacts{HasDLQ: true}, 0},
		{"mixed, nothing right", ephemeral, qos(0, 1), RouteFacts{}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := AdmitDirectHold(tt.session, tt.receiver, tt.route)
			got := 0
			if err != nil {
				got = len(err.(interface{ Unwrap() []error }).Unwrap())
				if fault.CodeOf(err) != fault.CodeInvalidConfig {
					t.Errorf("code %s, want INVALID_CONFIG", fault.CodeOf(err))
				}
			}
			if diff := cmp.Diff(tt.wantErrs, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s\n%v", diff, err)
			}
		})
	}
}
