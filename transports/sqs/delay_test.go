package sqs

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

func TestDelaySeconds(t *testing.T) {
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		notBefore time.Time
		fifo      bool
		want      int32
		code      fault.Code
	}{
		{"none", time.Time{}, false, 0, ""},
		{"in the past", now.Add(-time.Second), false, 0, ""},
		{"rounded up, never early", now.Add(1500 * time.Millisecond), false, 2, ""},
		{"the ceiling", now.Add(15 * time.Minute), false, 900, ""},
		{"past the ceiling", now.Add(15*time.Minute + time.Second), false, 0, fault.CodeNotSupported},
		{"FIFO cannot delay one message", now.Add(time.Second), true, 0, fault.CodeNotSupported},
		{"FIFO without a delay", time.Time{}, true, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := delaySeconds(tc.notBefore, now, tc.fifo)
			if got != tc.want || fault.CodeOf(err) != fault.CodeOf(errOf(tc.code)) {
				t.Errorf("delaySeconds = %d, %v; want %d, code %q", got, err, tc.want, tc.code)
			}
			if tc.code != "" && fault.IsRecoverable(err) {
				t.Errorf("%v is transient: the message would be retried forever instead of dead-lettered", err)
			}
		})
	}
}

// errOf returns an error with code c, or nil for "".
func errOf(c fault.Code) error {
	if c == "" {
		return nil
	}
	return fault.New(c, "")
}

// The delay reaches the wire as each entry's DelaySeconds, batched or not.
func TestNotBeforeBecomesDelaySeconds(t *testing.T) {
	for _, batch := range []bool{true, false} {
		var got []float64
		stub := newStub(t, map[string]stubOp{
			"SendMessageBatch": func(req map[string]any) (int, any) {
				var ok []map[string]any
				for _, e := range entries(req) {
					d, _ := e["DelaySeconds"].(float64)
					got = append(got, d)
					ok = append(ok, map[string]any{"Id": e["Id"], "MessageId": "x", "MD5OfMessageBody": "x"})
				}
				return 200, map[string]any{"Successful": ok}
			},
			"SendMessage": func(req map[string]any) (int, any) {
				d, _ := req["DelaySeconds"].(float64)
				got = append(got, d)
				return 200, map[string]any{"MessageId": "x", "MD5OfMessageBody": "x"}
			},
		})
		s, err := NewSender(stub.client(), SenderConfig{Batch: &batch})
		if err != nil {
			t.Fatal(err)
		}
		msgs := outbound(3)
		msgs[1].NotBefore = time.Now().Add(30 * time.Second)
		msgs[2].NotBefore = time.Now().Add(-time.Minute)
		res, err := s.SendBatch(t.Context(), msgs)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if r.Err != nil {
				t.Fatalf("batch=%v: message %d: %v", batch, r.Index, r.Err)
			}
		}
		if diff := cmp.Diff([]float64{0, 30, 0}, got); diff != "" {
			t.Errorf("batch=%v: DelaySeconds per entry (-want +got):\n%s", batch, diff)
		}
	}
}

func TestDelayLimitPerQueue(t *testing.T) {
	s, err := NewSender(newStub(t, nil).client(), SenderConfig{Queue: "jobs.fifo"})
	if err != nil {
		t.Fatal(err)
	}
	var d ports.Delayer = s
	for _, tc := range []struct {
		addr  string
		limit time.Duration
		code  fault.Code
	}{
		{"https://sqs.eu-west-1.amazonaws.com/1/q", 15 * time.Minute, ""},
		{"orders", 15 * time.Minute, ""},
		{"orders.fifo", 0, fault.CodeNotSupported},
		{"", 0, fault.CodeNotSupported}, // the default queue is FIFO
	} {
		limit, err := d.DelayLimit(tc.addr)
		if limit != tc.limit || fault.CodeOf(err) != fault.CodeOf(errOf(tc.code)) {
			t.Errorf("DelayLimit(%q) = %s, %v; want %s, code %q", tc.addr, limit, err, tc.limit, tc.code)
		}
	}
}
