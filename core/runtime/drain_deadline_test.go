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

// ctxOutbox is a fakeOutbox whose Complete honours its context, as a real
// store's does.
type ctxOutbox struct{ *fakeOutbox }

func (o ctxOutbox) Complete(ctx context.Context, id string, tok ports.LeaseToken) error {
	if err := ctx.Err(); err != nil {
		return fault.ErrUnavailable.Wrap(err)
	}
	return o.fakeOutbox.Complete(ctx, id, tok)
}

// heldBackSender accepts every message at once except those whose payload is
// "stuck", which it holds until the send's context ends.
type heldBackSender struct{ entered chan string }

func (s heldBackSender) Send(ctx context.Context, m ports.OutboundMessage) error {
	if string(m.Envelope.Payload()) != "stuck" {
		s.entered <- "sent"
		return nil
	}
	s.entered <- "stuck"
	<-ctx.Done()
	return fault.ErrTimeout.Wrap(ctx.Err())
}

// TestShutdownDeadlineCompletesWhatTheLastBatchDelivered: the stop timeout
// fires while one record of the drainer's batch is still being sent. The
// records of that batch the target already accepted must be completed, not
// left claimed to be sent again after a restart.
func TestShutdownDeadlineCompletesWhatTheLastBatchDelivered(t *testing.T) {
	ob := ctxOutbox{newFakeOutbox()}
	var recs []ports.OutboxRecord
	for _, p := range []string{"a", "stuck", "b"} {
		recs = append(recs, ports.OutboxRecord{Partition: "ob/b", RouteID: "ob", BindingID: "b", Address: "target",
			Envelope: messaging.NewEnvelope("s", []byte(p))})
	}
	if err := ob.Persist(context.Background(), recs); err != nil {
		t.Fatal(err)
	}
	snd := heldBackSender{entered: make(chan string, len(recs))}
	recv := memtransport.NewReceiver(memtransport.Options{})
	stop := start(t, []runtime.Route{outboxRoute(recv, snd, runtime.Policy{})},
		runtime.Options{DLQ: newMemDLQ(), Outbox: ob, StopTimeout: 50 * time.Millisecond})
	ctx := waitCtx(t)
	for range recs {
		select {
		case <-snd.entered:
		case <-ctx.Done():
			t.Fatal("the batch was not sent")
		}
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	var left []string
	ob.mu.Lock()
	for _, id := range ob.order {
		if r, ok := ob.recs[id]; ok {
			left = append(left, string(r.rec.Envelope.Payload()))
		}
	}
	ob.mu.Unlock()
	if diff := cmp.Diff([]string{"stuck"}, left); diff != "" {
		t.Errorf("records left in the outbox (-want +got):\n%s", diff)
	}
}
