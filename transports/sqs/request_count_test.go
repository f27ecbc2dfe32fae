package sqs

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// SQS bills per request. Forwarding N messages from one queue to another
// the way the runtime's direct mode does (one worker per message, up to
// max_in_flight, each sending and then acking its message) costs at most
// N/10 × 1.2 SendMessageBatch calls and as many DeleteMessageBatch calls,
// because concurrent sends and acks share batch calls.
func TestForwardingCostsAboutOneCallPerTenMessages(t *testing.T) {
	const n = 3000
	var seq atomic.Int64
	var sent atomic.Int64
	okAll := func(req map[string]any) (int, any) {
		var ok []map[string]any
		for _, e := range entries(req) {
			ok = append(ok, map[string]any{"Id": e["Id"], "MessageId": "m"})
		}
		return 200, map[string]any{"Successful": ok}
	}
	stub := newStub(t, map[string]stubOp{
		// Exactly n messages in all, however the pollers interleave.
		"ReceiveMessage": func(req map[string]any) (int, any) {
			want, _ := req["MaxNumberOfMessages"].(float64)
			var msgs []map[string]any
			for range int(want) {
				i := seq.Add(1)
				if i > n {
					break
				}
				msgs = append(msgs, map[string]any{"MessageId": fmt.Sprint("id", i), "ReceiptHandle": fmt.Sprint("rh", i), "Body": "b"})
			}
			return 200, map[string]any{"Messages": msgs}
		},
		"GetQueueAttributes": visibility30,
		"SendMessageBatch": func(req map[string]any) (int, any) {
			sent.Add(int64(len(entries(req))))
			return okAll(req)
		},
		"DeleteMessageBatch": okAll,
	})
	api := stub.client()
	r, err := NewReceiver(api, ReceiverConfig{Queue: stubQueue, WaitTime: time.Second}, WithMaxInFlight(100))
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSender(api, SenderConfig{Queue: stubQueue + "-out"})
	if err != nil {
		t.Fatal(err)
	}
	var acked atomic.Int64
	done := make(chan struct{})
	var workers sync.WaitGroup
	t.Cleanup(workers.Wait)
	runReceiver(t, r, func(ctx context.Context, d ports.Delivery) error {
		workers.Go(func() {
			env := messaging.NewEnvelope("fwd", d.Envelope().PayloadView())
			if err := s.Send(ctx, ports.OutboundMessage{Envelope: env}); err != nil {
				t.Errorf("Send: %v", err)
				return
			}
			if err := d.Ack(ctx); err != nil {
				t.Errorf("Ack: %v", err)
				return
			}
			if acked.Add(1) == n {
				close(done)
			}
		})
		return nil
	})
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("forwarded %d of %d", acked.Load(), n)
	}
	limit := n / 10 * 12 / 10
	sends, deletes := stub.calls("SendMessageBatch"), stub.calls("DeleteMessageBatch")
	t.Logf("%d messages: %d SendMessageBatch, %d DeleteMessageBatch calls", n, sends, deletes)
	if sends > limit || deletes > limit {
		t.Errorf("%d send and %d delete calls for %d messages; want at most %d each", sends, deletes, n, limit)
	}
	// SQS is reached over TLS: a connection opened per call would cost
	// a handshake each. The calls in flight at once (up to 10 receives and
	// the send and delete batches of 100 messages, about 40) reuse the
	// client's idle connections, however many messages go through.
	if c := stub.conns.Load(); c > 45 {
		t.Errorf("%d connections opened for %d calls; want at most 45 (idle connections kept for reuse)", c, sends+deletes+stub.calls("ReceiveMessage"))
	}
	if got := sent.Load(); got != n {
		t.Errorf("sent %d messages, want %d", got, n)
	}
}
