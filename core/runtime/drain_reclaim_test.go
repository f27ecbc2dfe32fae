package runtime_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

// TestRecordReclaimedAfterCrashesReachesThePoisonGate: a record whose sends
// crashed the process several times was claimed again and again but never
// replayed, so its replay count is 0. The poison gate counts claims, so
// once the budget is spent too the next failure sends it to the DLQ instead
// of replaying it forever.
func TestRecordReclaimedAfterCrashesReachesThePoisonGate(t *testing.T) {
	ob := newFakeOutbox()
	rec := ports.OutboxRecord{Partition: "ob/b", RouteID: "ob", BindingID: "b", Address: "target",
		Envelope: messaging.NewEnvelope("s", nil), ClaimCount: 7, FirstAttemptAt: time.Now().Add(-time.Hour)}
	if err := ob.Persist(context.Background(), []ports.OutboxRecord{rec}); err != nil {
		t.Fatal(err)
	}
	snd := memtransport.NewSender(memtransport.SenderOptions{Fail: func(ports.OutboundMessage) error { return fault.ErrConnectionLost }})
	dlq := newMemDLQ()
	start(t, []runtime.Route{outboxRoute(memtransport.NewReceiver(memtransport.Options{}), snd, runtime.Policy{})},
		runtime.Options{DLQ: dlq, Outbox: ob})
	es := dlq.wait(t, 1)
	got := []any{es[0].Category, es[0].ErrorCode, es[0].Attempts}
	if diff := cmp.Diff([]any{ports.DLQMaxRetries, "POISON_MESSAGE", 7}, got); diff != "" {
		t.Errorf("DLQ entry (-want +got):\n%s", diff)
	}
}
