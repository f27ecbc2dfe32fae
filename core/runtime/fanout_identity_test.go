package runtime_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
)

// TestFanOutProgressIsNotSharedByMessagesReusingAnID: a producer sends a
// second, different message under the ID of one whose fan-out is still
// being retried. The second message must reach every destination: the
// destinations the first one reached say nothing about it.
func TestFanOutProgressIsNotSharedByMessagesReusingAnID(t *testing.T) {
	dlq := newMemDLQ()
	_, recv, snds := fanOutRoute(t, fault.ErrConnectionLost, dlq)
	first := messaging.NewEnvelope("s", []byte("first"))
	first.ID = "reused"
	publish(t, recv, first)
	// b2 refused the first message; it waits for its retry while b1 and
	// b3 hold it.
	if err := recv.WaitRetried(waitCtx(t), 1); err != nil {
		t.Fatal(err)
	}
	second := messaging.NewEnvelope("s", []byte("second"))
	second.ID = "reused"
	publish(t, recv, second)
	if err := recv.WaitAcked(waitCtx(t), 1); err != nil {
		t.Fatal(err)
	}
	got := make([][]string, len(snds))
	for i, s := range snds {
		for _, m := range s.Sent() {
			got[i] = append(got[i], string(m.Envelope.Payload()))
		}
	}
	want := [][]string{{"first", "second"}, {"second"}, {"first", "second"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("payloads per destination (-want +got):\n%s", diff)
	}
}
