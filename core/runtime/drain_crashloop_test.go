package runtime_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

// TestRecordThatKillsEverySendIsDeadLetteredWithoutAnotherSend: a record
// whose send crashes the process every time never comes back with an
// error to settle, only with more claims. Once its earlier claims alone
// spend max_replay_attempts and its budget is spent too, the next claim
// sends it to the DLQ without sending it again, so the process stops
// dying on it.
func TestRecordThatKillsEverySendIsDeadLetteredWithoutAnotherSend(t *testing.T) {
	ob := newCountingOutbox()
	// Five claims so far, none of which got to a replay; the first was an
	// hour ago. This claim is the sixth.
	id := persistOne(t, ob, ports.OutboxRecord{ClaimCount: 5, FirstAttemptAt: time.Now().Add(-time.Hour)})
	var sends atomic.Int32
	snd := memtransport.NewSender(memtransport.SenderOptions{Fail: func(ports.OutboundMessage) error {
		sends.Add(1) // stands for the send that kills the process
		return nil
	}})
	dlq := newMemDLQ()
	start(t, []runtime.Route{outboxRoute(memtransport.NewReceiver(memtransport.Options{}), snd, runtime.Policy{})},
		runtime.Options{DLQ: dlq, Outbox: ob})
	es := dlq.wait(t, 1)
	got := []any{es[0].Category, es[0].ErrorCode, es[0].Attempts, int(sends.Load())}
	if diff := cmp.Diff([]any{ports.DLQMaxRetries, "POISON_MESSAGE", 6, 0}, got); diff != "" {
		t.Errorf("DLQ entry and sends (-want +got):\n%s", diff)
	}
	ctx := waitCtx(t)
	for {
		if _, ok := ob.record(id); !ok {
			break
		}
		select {
		case <-ob.changed:
		case <-ctx.Done():
			t.Fatal("the dead-lettered record was not completed")
		}
	}
}
