package runtime_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

// sloppyBatchSender answers its first SendBatch call with the results
// shape() makes of the batch, then behaves: it records as accepted only the
// messages a result with a nil error names.
type sloppyBatchSender struct {
	shape func(n int) []ports.BatchResult

	mu       sync.Mutex
	calls    int
	accepted map[string]bool
}

func (s *sloppyBatchSender) Send(ctx context.Context, m ports.OutboundMessage) error {
	res, err := s.SendBatch(ctx, []ports.OutboundMessage{m})
	if err != nil {
		return err
	}
	return res[0].Err
}

func (s *sloppyBatchSender) SendBatch(_ context.Context, msgs []ports.OutboundMessage) ([]ports.BatchResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	var res []ports.BatchResult
	if s.calls == 1 {
		res = s.shape(len(msgs))
	} else {
		for i := range msgs {
			res = append(res, ports.BatchResult{Index: i})
		}
	}
	for _, r := range res {
		if r.Err == nil && r.Index >= 0 && r.Index < len(msgs) {
			s.accepted[msgs[r.Index].Envelope.ID] = true
		}
	}
	return res, nil
}

func (s *sloppyBatchSender) acceptedIDs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for id := range s.accepted {
		ids = append(ids, id)
	}
	return ids
}

// TestBatchResultsMissingAMessageDoNotCountAsDelivered: a batch sender
// whose results repeat an index, or name one out of range, leaves some
// messages without a result of their own. Those messages must be retried,
// never completed as delivered.
func TestBatchResultsMissingAMessageDoNotCountAsDelivered(t *testing.T) {
	for _, tc := range []struct {
		name  string
		shape func(n int) []ports.BatchResult
	}{
		{"every result names the first message", func(n int) []ports.BatchResult {
			return make([]ports.BatchResult, n) // Index 0 n times
		}},
		{"out-of-range indexes", func(n int) []ports.BatchResult {
			res := make([]ports.BatchResult, n)
			for i := range res {
				res[i].Index = n + i
			}
			return res
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 5
			snd := &sloppyBatchSender{shape: tc.shape, accepted: map[string]bool{}}
			ob := newFakeOutbox()
			// The backlog is in the outbox before the drainer starts, so
			// its first claim takes it whole and sends it as one batch.
			var want []string
			var recs []ports.OutboxRecord
			for range n {
				e := messaging.NewEnvelope("s", nil)
				want = append(want, e.ID)
				recs = append(recs, ports.OutboxRecord{Partition: "ob/b", RouteID: "ob", BindingID: "b", Address: "target", Envelope: e})
			}
			if err := ob.Persist(context.Background(), recs); err != nil {
				t.Fatal(err)
			}
			pol := runtime.Policy{Backoff: runtime.Backoff{Initial: time.Millisecond, Max: time.Millisecond}}
			recv := memtransport.NewReceiver(memtransport.Options{})
			stop := start(t, []runtime.Route{outboxRoute(recv, snd, pol)}, runtime.Options{DLQ: newMemDLQ(), Outbox: ob})
			ctx := waitCtx(t)
			for ob.len() != 0 {
				select {
				case <-ob.changed:
				case <-ctx.Done():
					t.Fatalf("outbox still holds %d records", ob.len())
				}
			}
			if err := stop(); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, snd.acceptedIDs(), cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
				t.Errorf("completed records the target never accepted (-want +got):\n%s", diff)
			}
		})
	}
}
