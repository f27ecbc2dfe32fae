package servicebus

import (
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus"
	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/messaging"
)

// Headers that describe one hop of this bridge (route, source, route
// override, content type that its native property cannot hold) are not
// sent: every bridge strips them at ingress, so they would cost the
// broker a property per message and tell no reader anything. A message
// whose other headers all went native carries no application properties
// section at all.
func TestSenderLeavesOutHopHeaders(t *testing.T) {
	tests := []struct {
		name    string
		headers map[string]any
		want    map[string]any
	}{
		{
			name: "runtime headers only",
			headers: map[string]any{messaging.HeaderCorrelationID: "c", messaging.HeaderRouteID: "fwd",
				messaging.HeaderSourceID: "in", messaging.HeaderRouteOverride: "other", messaging.HeaderContentType: "text/plain"},
		},
		{
			name:    "mixed case and a content type that cannot go native",
			headers: map[string]any{"X-Bridge.Route-Id": "fwd", messaging.HeaderContentType: "", "app": "kept"},
			want:    map[string]any{"app": "kept"},
		},
		{
			name:    "propagated bridge headers still travel",
			headers: map[string]any{messaging.HeaderRouteID: "fwd", messaging.HeaderIdempotencyKey: "k", messaging.HeaderTenantID: "t"},
			want:    map[string]any{messaging.HeaderIdempotencyKey: "k", messaging.HeaderTenantID: "t"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := messaging.NewEnvelope("s", []byte("x"))
			env.Headers = tt.headers
			m, err := toMessage(env, outbound{now: time.Now()})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, m.ApplicationProperties); diff != "" {
				t.Errorf("application properties (-want +got):\n%s", diff)
			}
		})
	}
}

// BenchmarkWireMapping is the transport's own share of forwarding one
// message: the envelope of a received message, the runtime's headers,
// and the message to send.
func BenchmarkWireMapping(b *testing.B) {
	seq := int64(5)
	now := time.Now()
	locked := now.Add(time.Minute)
	rm := &azservicebus.ReceivedMessage{MessageID: "8f859b40-ba4b-4a09-7d4e-8b12c4a6c9b6", Body: make([]byte, 100),
		SequenceNumber: &seq, EnqueuedTime: &now, LockedUntil: &locked, DeliveryCount: 1}
	b.ReportAllocs()
	for b.Loop() {
		env := fromReceived(rm, now)
		env.Headers[messaging.HeaderCorrelationID] = env.ID
		env.Headers[messaging.HeaderRouteID] = "fwd"
		env.Headers[messaging.HeaderSourceID] = "in"
		if _, err := toMessage(env, outbound{now: now}); err != nil {
			b.Fatal(err)
		}
	}
}

// With minimal_headers the sender leaves out what only a bridge reads:
// the x-bridge.* application properties, the creation time, and a
// correlation id equal to the message id. A correlation id of its own
// still goes native, and application headers still travel.
func TestMinimalHeaders(t *testing.T) {
	created := time.UnixMilli(1700000000000).UTC()
	tests := []struct {
		name        string
		minimal     bool
		headers     map[string]any
		wantProps   map[string]any
		wantCorr    any
		wantCreated bool
	}{
		{
			name:        "default: everything travels",
			headers:     map[string]any{messaging.HeaderCorrelationID: "id-1", messaging.HeaderTenantID: "t", "app": "kept"},
			wantProps:   map[string]any{messaging.HeaderTenantID: "t", "app": "kept"},
			wantCorr:    "id-1",
			wantCreated: true,
		},
		{
			name:      "minimal: the message's own id as correlation id is not sent",
			minimal:   true,
			headers:   map[string]any{messaging.HeaderCorrelationID: "id-1", messaging.HeaderTenantID: "t", "app": "kept"},
			wantProps: map[string]any{"app": "kept"},
		},
		{
			name:     "minimal: a correlation id of its own still goes native",
			minimal:  true,
			headers:  map[string]any{messaging.HeaderCorrelationID: "conv-7", "X-Bridge.Idempotency-Key": "k"},
			wantCorr: "conv-7",
		},
		{
			name:    "minimal: a correlation id too long to go native is not sent at all",
			minimal: true,
			headers: map[string]any{messaging.HeaderCorrelationID: strings.Repeat("c", maxIDLength+1)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := messaging.NewEnvelope("s", []byte("x"))
			env.ID, env.CreatedAt, env.Headers = "id-1", created, tt.headers
			m, err := toMessage(env, outbound{now: time.Now(), minimal: tt.minimal})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantProps, m.ApplicationProperties); diff != "" {
				t.Errorf("application properties (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantCorr, m.Properties.CorrelationID); diff != "" {
				t.Errorf("correlation id (-want +got):\n%s", diff)
			}
			if got := m.Properties.CreationTime != nil; got != tt.wantCreated {
				t.Errorf("creation time set %v, want %v", got, tt.wantCreated)
			}
			if m.Properties.MessageID != "id-1" || m.Properties.Subject == nil || *m.Properties.Subject != "s" {
				t.Errorf("message id %v, subject %v: both must travel", m.Properties.MessageID, m.Properties.Subject)
			}
		})
	}
}
