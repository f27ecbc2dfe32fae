package sqs

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/gobridge-oss/gobridge/core/itest"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// countingAPI counts the receipt handles deleted through it.
type countingAPI struct {
	API
	mu      sync.Mutex
	deleted map[string]int
}

func (c *countingAPI) DeleteMessageBatch(ctx context.Context, in *sqs.DeleteMessageBatchInput, opts ...func(*sqs.Options)) (*sqs.DeleteMessageBatchOutput, error) {
	out, err := c.API.DeleteMessageBatch(ctx, in, opts...)
	if err == nil {
		c.mu.Lock()
		for _, e := range in.Entries {
			c.deleted[*e.ReceiptHandle]++
		}
		c.mu.Unlock()
	}
	return out, err
}

// A message held for three times the queue's visibility timeout, its
// lease extended the way the runtime does it (when a third is left, for a
// whole lease more), is not handed to a second consumer meanwhile, and is
// deleted exactly once.
func TestLongProcessingIsNotRedeliveredWhileExtended(t *testing.T) {
	itest.Short(t, "holds a message for 6s")
	cc := emulatorClient(t)
	base := testAPI(t, cc)
	q := newQueue(t, base, map[string]string{"VisibilityTimeout": "2"})
	api := &countingAPI{API: base, deleted: map[string]int{}}
	mk := func() *Receiver {
		r, err := NewReceiver(api, ReceiverConfig{Client: cc, Queue: q, WaitTime: time.Second}, WithMaxInFlight(4))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	first, second := make(chan ports.Delivery, 4), make(chan ports.Delivery, 4)
	runReceiver(t, mk(), collect(first))
	s, err := NewSender(base, SenderConfig{Client: cc, Queue: q, Batch: boolPtr(false)})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Send(t.Context(), ports.OutboundMessage{Envelope: messaging.NewEnvelope("s", []byte("slow"))}); err != nil {
		t.Fatal(err)
	}
	d := next(t, first)
	runReceiver(t, mk(), collect(second))

	lease := time.Until(d.(ports.Leased).LeaseUntil())
	hold := time.NewTimer(3 * 2 * time.Second)
	defer hold.Stop()
	for held := false; !held; {
		wait := time.NewTimer(time.Until(d.(ports.Leased).LeaseUntil()) - lease/3)
		select {
		case <-hold.C:
			held = true
		case <-wait.C:
			if err := d.Extend(t.Context(), time.Now().Add(lease)); err != nil {
				t.Fatalf("Extend: %v", err)
			}
		case other := <-second:
			t.Fatalf("delivered to a second consumer while extended: %q", other.Envelope().PayloadView())
		case again := <-first:
			t.Fatalf("delivered again while extended: %q", again.Envelope().PayloadView())
		}
		wait.Stop()
	}
	if err := d.Ack(t.Context()); err != nil {
		t.Fatalf("Ack: %v", err)
	}
	quiet := time.NewTimer(3 * time.Second)
	defer quiet.Stop()
	select {
	case <-quiet.C:
	case other := <-second:
		t.Fatalf("delivered after the ack: %q", other.Envelope().PayloadView())
	case again := <-first:
		t.Fatalf("delivered after the ack: %q", again.Envelope().PayloadView())
	}
	api.mu.Lock()
	defer api.mu.Unlock()
	if len(api.deleted) != 1 {
		t.Errorf("deleted %v, want one message deleted once", api.deleted)
	}
	for h, n := range api.deleted {
		if n != 1 {
			t.Errorf("receipt %s deleted %d times", h, n)
		}
	}
}
