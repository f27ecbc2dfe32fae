package runtime_test

import (
	"context"
	"fmt"
	"hash/fnv"
	"sync"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

// flakySender fails each message a deterministic number of times: most
// succeed at once, some fail transiently a few times, a few permanently.
type flakySender struct {
	mu    sync.Mutex
	tries map[string]int
	ok    map[string]int
}

func newFlakySender() *flakySender {
	return &flakySender{tries: map[string]int{}, ok: map[string]int{}}
}

func (f *flakySender) Send(_ context.Context, m ports.OutboundMessage) error {
	h := fnv.New32a()
	h.Write([]byte(m.Envelope.ID))
	v := h.Sum32() % 100
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tries[m.Envelope.ID]++
	switch {
	case v < 5:
		return fault.ErrForbidden
	case v < 25 && f.tries[m.Envelope.ID] <= int(v%3)+1:
		return fault.ErrConnectionLost
	}
	f.ok[m.Envelope.ID]++
	return nil
}

func TestNoDeliveryLostOrSettledTwice(t *testing.T) {
	const n = 2000
	recv := memtransport.NewReceiver(memtransport.Options{QueueSize: n})
	snd := newFlakySender()
	dlq := newMemDLQ()
	routes := []runtime.Route{{
		ID: "s", Receiver: recv, Policy: runtime.Policy{
			MaxInFlight: 16, MaxReplayAttempts: 1000,
			Backoff: runtime.Backoff{Initial: time.Millisecond, Max: 2 * time.Millisecond},
		},
		Bindings: []runtime.Binding{{ID: "b", Sender: snd}},
	}}
	envs := make([]*messaging.Envelope, n)
	for i := range envs {
		envs[i] = messaging.NewEnvelope("s", []byte(fmt.Sprint(i)))
	}
	ids := publish(t, recv, envs...)

	// Stop the first runtime mid-stream, simulate a restart of the
	// source, and finish with a second runtime.
	stop := start(t, routes, runtime.Options{DLQ: dlq, StopTimeout: time.Millisecond})
	if err := recv.WaitAcked(waitCtx(t), n/4); err != nil {
		t.Fatal(err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if st := recv.Stats(); st.Acked+st.Pending() != n {
		t.Fatalf("after stop: %+v: acked+pending != %d", st, n)
	}
	recv.RequeueUnsettled()
	start(t, routes, runtime.Options{DLQ: dlq})
	if err := recv.WaitAcked(waitCtx(t), n); err != nil {
		t.Fatalf("not every message settled: %v (stats %+v)", err, recv.Stats())
	}

	st := recv.Stats()
	if st.DoubleSettlements != 0 {
		t.Errorf("%d double settlements", st.DoubleSettlements)
	}
	acked := map[string]int{}
	for _, id := range recv.Acked() {
		acked[id]++
	}
	inDLQ := map[string]bool{}
	for _, e := range dlq.all() {
		inDLQ[e.Envelope.ID] = true
	}
	snd.mu.Lock()
	defer snd.mu.Unlock()
	for _, id := range ids {
		if acked[id] != 1 {
			t.Errorf("message %s acked %d times", id, acked[id])
		}
		if snd.ok[id] == 0 && !inDLQ[id] {
			t.Errorf("message %s acked but neither delivered nor dead-lettered", id)
		}
	}
}
