package runtime_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

// persistOne stores one record of the test route's partition and returns
// its ID.
func persistOne(t *testing.T, ob countingOutbox, r ports.OutboxRecord) string {
	t.Helper()
	r.Partition, r.RouteID, r.BindingID, r.Address = "ob/b", "ob", "b", "target"
	r.Envelope = messaging.NewEnvelope("orders.created", []byte("p"))
	recs := []ports.OutboxRecord{r}
	if err := ob.Persist(context.Background(), recs); err != nil {
		t.Fatal(err)
	}
	ob.mu.Lock()
	defer ob.mu.Unlock()
	return ob.order[len(ob.order)-1] // the fake does not write IDs back
}

// failingSender fails every send with a transient error and counts them.
func failingSender(calls *atomic.Int32) *memtransport.Sender {
	return memtransport.NewSender(memtransport.SenderOptions{Fail: func(ports.OutboundMessage) error {
		calls.Add(1)
		return fault.ErrBrokerBusy
	}})
}

// TestRecordThatCrashesItsDrainerIsDeadLetteredOnceItsClaimsAreSpent: the
// send of a record hangs until the process dies, twice. Neither attempt
// got as far as a replay, so the record's replay count is still 0, but the
// store counted both claims. The third claim's send fails, and with three
// claims against max_replay_attempts 3 and the budget spent, that first
// failure is poison: the record goes to the DLQ instead of being replayed
// and reclaimed for as long as the process keeps dying.
func TestRecordThatCrashesItsDrainerIsDeadLetteredOnceItsClaimsAreSpent(t *testing.T) {
	ob := newCountingOutbox()
	id := persistOne(t, ob, ports.OutboxRecord{})
	pol := runtime.Policy{
		MaxReplayAttempts: 3, ReplayBudget: time.Nanosecond,
		Backoff: runtime.Backoff{Initial: time.Millisecond, Max: time.Millisecond},
	}
	recv := memtransport.NewReceiver(memtransport.Options{})
	for crash := 1; crash <= 2; crash++ {
		hang := newGateSender()
		stop := start(t, []runtime.Route{outboxRoute(recv, hang, pol)},
			runtime.Options{DLQ: newMemDLQ(), Outbox: ob, StopTimeout: 20 * time.Millisecond})
		hang.waitEntered(t, 1)
		_ = stop()
		ob.crash()
		if r, ok := ob.record(id); !ok || r.ClaimCount != crash || r.ReplayCount != 0 {
			t.Fatalf("after crash %d: record %+v (stored %v), want %d claims and no replay", crash, r, ok, crash)
		}
	}

	var calls atomic.Int32
	dlq := newMemDLQ()
	start(t, []runtime.Route{outboxRoute(recv, failingSender(&calls), pol)}, runtime.Options{DLQ: dlq, Outbox: ob})
	es := dlq.wait(t, 1)
	got := []any{es[0].Category, es[0].ErrorCode, es[0].Attempts, calls.Load()}
	want := []any{ports.DLQMaxRetries, "POISON_MESSAGE", 3, int32(1)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DLQ entry category, code, attempts and sends (-want +got):\n%s", diff)
	}
}

// TestPoisonGateCountsClaimsAndReplays: the gate's attempt count is the
// larger of the record's claims (this one included) and its failed
// attempts, and the budget must be spent too. Each row persists a record
// with a history, lets one send fail, and says whether that failure
// dead-letters the record or replays it.
func TestPoisonGateCountsClaimsAndReplays(t *testing.T) {
	tests := []struct {
		name           string
		claims, replay int
		budget         time.Duration
		poisoned       bool
	}{
		{name: "third claim after two crashes", claims: 2, budget: time.Nanosecond, poisoned: true},
		{name: "second claim after one crash", claims: 1, budget: time.Nanosecond},
		{name: "claims spent, budget not", claims: 9, budget: time.Hour},
		{name: "replays spent, claims not counted by an older store", replay: 2, budget: time.Nanosecond, poisoned: true},
		{name: "first claim of a fresh record", budget: time.Nanosecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ob := newCountingOutbox()
			id := persistOne(t, ob, ports.OutboxRecord{ClaimCount: tt.claims, ReplayCount: tt.replay})
			pol := runtime.Policy{
				MaxReplayAttempts: 3, ReplayBudget: tt.budget,
				Backoff: runtime.Backoff{Initial: time.Hour, Max: time.Hour},
			}
			var calls atomic.Int32
			dlq := newMemDLQ()
			stop := start(t, []runtime.Route{outboxRoute(memtransport.NewReceiver(memtransport.Options{}), failingSender(&calls), pol)},
				runtime.Options{DLQ: dlq, Outbox: ob})
			// Settled once the record is gone (dead-lettered and
			// completed) or replayed an hour into the future.
			ctx := waitCtx(t)
			for {
				r, ok := ob.record(id)
				if !ok || r.ReplayCount > tt.replay {
					break
				}
				select {
				case <-ob.changed:
				case <-ctx.Done():
					t.Fatalf("record %+v was neither dead-lettered nor replayed", r)
				}
			}
			_ = stop()
			_, stored := ob.record(id)
			got := []any{len(dlq.all()) == 1, stored, calls.Load()}
			want := []any{tt.poisoned, !tt.poisoned, int32(1)}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("dead-lettered, still stored, sends (-want +got):\n%s", diff)
			}
		})
	}
}
