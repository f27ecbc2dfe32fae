package sqs

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// On a FIFO queue, messages of one group come one at a time, the next
// only after the previous was acked; other groups go on meanwhile; a
// retried message sends the rest of its group back to the queue.
func TestOrderedFIFOOneInFlightPerGroup(t *testing.T) {
	var served atomic.Bool
	var mu sync.Mutex
	var handedBack []string
	msg := func(id, group string) map[string]any {
		return map[string]any{"MessageId": id, "ReceiptHandle": "rh-" + id, "Body": id,
			"Attributes": map[string]string{"MessageGroupId": group, "ApproximateReceiveCount": "1"}}
	}
	okAll := func(req map[string]any) (int, any) {
		var ok []map[string]any
		for _, e := range entries(req) {
			ok = append(ok, map[string]any{"Id": e["Id"]})
		}
		return 200, map[string]any{"Successful": ok}
	}
	stub := newStub(t, map[string]stubOp{
		"ReceiveMessage": func(map[string]any) (int, any) {
			if served.Swap(true) {
				return 200, map[string]any{}
			}
			return 200, map[string]any{"Messages": []map[string]any{msg("a1", "A"), msg("a2", "A"), msg("b1", "B"), msg("a3", "A")}}
		},
		"GetQueueAttributes": visibility30,
		"DeleteMessageBatch": okAll,
		"ChangeMessageVisibility": func(req map[string]any) (int, any) {
			mu.Lock()
			handedBack = append(handedBack, req["ReceiptHandle"].(string))
			mu.Unlock()
			return 200, map[string]any{}
		},
	})
	r, err := NewReceiver(stub.client(), ReceiverConfig{Queue: stubQueue + ".fifo", WaitTime: time.Second, Pollers: 1}, WithMaxInFlight(10))
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan ports.Delivery, 10)
	runReceiver(t, r, collect(ch))
	got := map[string]ports.Delivery{}
	for range 2 {
		d := next(t, ch)
		got[string(d.Envelope().PayloadView())] = d
	}
	if got["a1"] == nil || got["b1"] == nil {
		t.Fatalf("first deliveries %v, want a1 and b1", keysOf(got))
	}
	quiet := func(what string) {
		select {
		case d := <-ch:
			t.Fatalf("%s: %q delivered", what, d.Envelope().PayloadView())
		case <-time.After(200 * time.Millisecond):
		}
	}
	quiet("a2 before a1 was acked")
	if err := got["a1"].Ack(t.Context()); err != nil {
		t.Fatal(err)
	}
	a2 := next(t, ch)
	if p := string(a2.Envelope().PayloadView()); p != "a2" {
		t.Fatalf("after a1's ack got %q, want a2", p)
	}
	if err := a2.Retry(t.Context(), time.Second, nil); err != nil {
		t.Fatal(err)
	}
	quiet("a3 after a2 was retried")
	want := []string{"rh-a2", "rh-a3"}
	var seen []string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		mu.Lock()
		seen = append([]string(nil), handedBack...)
		mu.Unlock()
		if len(seen) >= len(want) {
			break
		}
		waitTick()
	}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("visibility changes (-want +got):\n%s", diff)
	}
}

func keysOf(m map[string]ports.Delivery) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// waitTick pauses a test that polls for a condition with a deadline.
func waitTick() {
	t := time.NewTimer(20 * time.Millisecond)
	defer t.Stop()
	<-t.C
}
