package sqs

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// problemFields returns the field each reported problem names.
func problemFields(err error) []string {
	if err == nil {
		return nil
	}
	var out []string
	for _, line := range strings.Split(err.Error(), "\n") {
		for _, f := range []string{"client.region", "client.endpoint", "client.protocol", "client.access_key_id",
			"client.session_token", "fifo.deduplication", "fifo.default_group", "queue", "wait_time", "max_messages", "pollers", "visibility_timeout", "batch_window"} {
			if strings.Contains(line, f+": ") {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

func TestReceiverConfigValidateNamesEveryProblem(t *testing.T) {
	cases := []struct {
		name string
		cfg  ReceiverConfig
		want []string
	}{
		{"defaults with a queue", ReceiverConfig{Queue: "orders"}, nil},
		{"queue URL", ReceiverConfig{Queue: stubQueue}, nil},
		{"missing queue", ReceiverConfig{}, []string{"queue"}},
		{"bad queue name", ReceiverConfig{Queue: "a b"}, []string{"queue"}},
		{"everything wrong", ReceiverConfig{
			Client: ClientConfig{Region: "Europe", Endpoint: "ftp://x", Protocol: "xml", AccessKeyID: "AK", SessionToken: ""},
			Queue:  "q", WaitTime: 21 * time.Second, MaxMessages: 11, Pollers: 11,
			VisibilityTimeout: 13 * time.Hour, BatchWindow: 2 * time.Second,
		}, []string{"client.region", "client.endpoint", "client.protocol", "client.access_key_id",
			"wait_time", "max_messages", "pollers", "visibility_timeout", "batch_window"}},
		{"fractional wait", ReceiverConfig{Queue: "q", WaitTime: 1500 * time.Millisecond}, []string{"wait_time"}},
		{"token without keys", ReceiverConfig{Queue: "q", Client: ClientConfig{SessionToken: "t"}}, []string{"client.session_token"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := problemFields(c.cfg.WithDefaults().Validate())
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("problem fields (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSenderConfigValidate(t *testing.T) {
	if err := (SenderConfig{}).WithDefaults().Validate(); err != nil {
		t.Errorf("empty sender config: %v", err)
	}
	got := problemFields(SenderConfig{Queue: "no/slash", Client: ClientConfig{Endpoint: "http://u:p@h"},
		FIFO: FIFOConfig{Deduplication: "none", DefaultGroup: "has space"}}.WithDefaults().Validate())
	if diff := cmp.Diff([]string{"client.endpoint", "queue", "fifo.deduplication", "fifo.default_group"}, got); diff != "" {
		t.Errorf("problem fields (-want +got):\n%s", diff)
	}
}
