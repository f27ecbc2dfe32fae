package runtime_test

import (
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// TestDLQOutageOnSourceThatCannotRetryLeavesMessageUnsettled: a source
// that cannot Retry (AMQP retry.mode: off) but redelivers what the bridge
// never settled hands over a message that fails permanently while the DLQ
// is down. The message must stay unsettled for the source to redeliver,
// not be acked and dropped; once the DLQ is back, the redelivery reaches it.
func TestDLQOutageOnSourceThatCannotRetryLeavesMessageUnsettled(t *testing.T) {
	recv := memtransport.NewReceiver(memtransport.Options{NoRetry: true, Unsettled: memtransport.UnsettledRedeliver})
	snd := memtransport.NewSender(memtransport.SenderOptions{Fail: func(ports.OutboundMessage) error { return fault.ErrForbidden }})
	dlq := newMemDLQ()
	dlq.setFail(fault.ErrUnavailable)
	meter := telemetry.NewMemory()
	start(t, []runtime.Route{{
		ID: "r", Receiver: recv, Bindings: []runtime.Binding{{ID: "b", Sender: snd}},
	}}, runtime.Options{DLQ: dlq, Meter: meter})
	publish(t, recv, messaging.NewEnvelope("s", []byte("x")))
	ctx := waitCtx(t)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for meter.Value("gobridge_route_messages_unsettled_total", "r") != 1 {
		select {
		case <-ctx.Done():
			t.Fatalf("message not left unsettled; acked=%d dropped=%v", len(recv.Acked()),
				meter.Value("gobridge_route_messages_dropped_total", "r", "dlq_unavailable"))
		case <-tick.C:
		}
	}
	if n := len(recv.Acked()); n != 0 {
		t.Fatalf("acked %d messages that neither the DLQ nor the target took", n)
	}
	dlq.setFail(nil)
	if n := recv.RequeueUnsettled(); n != 1 {
		t.Fatalf("requeued %d unsettled deliveries, want 1", n)
	}
	dlq.wait(t, 1)
	if err := recv.WaitAcked(waitCtx(t), 1); err != nil {
		t.Fatal(err)
	}
}
