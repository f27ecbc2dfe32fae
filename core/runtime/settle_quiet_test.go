package runtime_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

// goneSource hands out n deliveries on one "channel" that dies while they
// are being sent: their Ack then fails, as a broker client's does.
type goneSource struct {
	n       int
	chanCtx context.Context
	acked   chan struct{}
}

func (s goneSource) Run(ctx context.Context, emit ports.EmitFunc) error {
	for range s.n {
		if err := emit(ctx, goneDelivery{env: messaging.NewEnvelope("s", nil), src: s}); err != nil {
			return err
		}
	}
	<-ctx.Done()
	return nil
}

type goneDelivery struct {
	env *messaging.Envelope
	src goneSource
}

func (d goneDelivery) Envelope() *messaging.Envelope { return d.env }
func (d goneDelivery) Ack(context.Context) error {
	d.src.acked <- struct{}{}
	return fault.ErrConnectionLost.WithMessage("channel closed")
}
func (d goneDelivery) Retry(context.Context, time.Duration, error) error { return nil }
func (d goneDelivery) Extend(context.Context, time.Time) error           { return nil }
func (d goneDelivery) AbandonContext() context.Context                   { return d.src.chanCtx }

// chanKiller is a target that accepts each message just as the source's
// channel dies.
type chanKiller struct{ kill context.CancelFunc }

func (k chanKiller) Send(context.Context, ports.OutboundMessage) error { k.kill(); return nil }

// TestAcksOnADeadChannelDoNotWarnPerMessage: when the source's channel has
// died, the acks of every delivery in flight fail. The source reports the
// loss once; the route must not add one warning per message.
func TestAcksOnADeadChannelDoNotWarnPerMessage(t *testing.T) {
	chanCtx, kill := context.WithCancel(context.Background())
	src := goneSource{n: 20, chanCtx: chanCtx, acked: make(chan struct{}, 20)}
	var logs syncBuffer
	stop := start(t, []runtime.Route{{ID: "r", Receiver: src, Bindings: []runtime.Binding{{ID: "b", Sender: chanKiller{kill}}}}},
		runtime.Options{DLQ: newMemDLQ(), Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))})
	ctx := waitCtx(t)
	for range src.n {
		select {
		case <-src.acked:
		case <-ctx.Done():
			t.Fatal("not every delivery was settled")
		}
	}
	if err := stop(); err != nil { // every settlement has been logged
		t.Fatal(err)
	}
	if n := strings.Count(logs.String(), "ack failed"); n != 0 {
		t.Errorf("%d per-message warnings for acks on a dead channel:\n%s", n, logs.String())
	}
}
