package amqp091

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// TestSenderOutcomes checks how the broker's answers map to errors, and
// that a channel the broker closed is replaced on the next send.
func TestSenderOutcomes(t *testing.T) {
	url := brokerURL()
	requireBroker(t, url)
	a := newAdmin(t, url)
	full := uniqueName(t, "full")
	ok := uniqueName(t, "ok")
	internal := uniqueName(t, "internal")
	a.deleteOnCleanup([]string{full, ok}, []string{internal})
	sess := newTestSession(t, url, Topology{Exchanges: []ExchangeSpec{{Name: internal, Internal: true}}, Queues: []QueueSpec{
		// One message fills it; the next publish is refused with a nack.
		{Name: full, MaxLength: 1, Arguments: map[string]any{"x-overflow": "reject-publish"}},
		{Name: ok},
	}})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	send := func(s *Sender, addr string) error {
		return s.Send(ctx, ports.OutboundMessage{Envelope: messaging.NewEnvelope("subj", []byte("x")), Address: addr})
	}
	def, err := NewSender(sess, SenderConfig{}) // the default exchange: the address names a queue
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = def.Close(ctx) }()
	missing, err := NewSender(sess, SenderConfig{Exchange: "no-such-exchange-" + randomSuffix()})
	if err != nil {
		t.Fatal(err)
	}
	// Publishing to an internal exchange is refused with 403.
	refused, err := NewSender(sess, SenderConfig{Exchange: internal})
	if err != nil {
		t.Fatal(err)
	}
	type outcome struct {
		Class fault.Class
		Code  fault.Code
	}
	cases := []struct {
		name string
		s    *Sender
		addr string
		want outcome
	}{
		{"confirmed", def, ok, outcome{}},
		{"fills the queue", def, full, outcome{}},
		{"nacked by the broker", def, full, outcome{fault.ClassTransient, fault.CodeBrokerBusy}},
		{"returned: no queue for the key", def, "no-queue-" + randomSuffix(), outcome{fault.ClassPermanent, fault.CodeNotFound}},
		{"exchange missing: channel closed", missing, "k", outcome{fault.ClassPermanent, fault.CodeNotFound}},
		{"missing again, on a new channel", missing, "k", outcome{fault.ClassPermanent, fault.CodeNotFound}},
		{"access refused", refused, "k", outcome{fault.ClassPermanent, fault.CodeForbidden}},
		{"still fine after all that", def, ok, outcome{}},
	}
	for _, c := range cases {
		err := send(c.s, c.addr)
		got := outcome{fault.ClassOf(err), fault.CodeOf(err)}
		if err == nil {
			got = outcome{}
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s: Send = %v (-want +got):\n%s", c.name, err, diff)
		}
	}
}

func TestSenderDeliveryMode(t *testing.T) {
	url := brokerURL()
	requireBroker(t, url)
	a := newAdmin(t, url)
	q := uniqueName(t, "mode")
	a.deleteOnCleanup([]string{q}, nil)
	sess := newTestSession(t, url, Topology{Queues: []QueueSpec{{Name: q}}})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	var got []uint8
	for _, mode := range []DeliveryMode{"", Transient} {
		s, err := NewSender(sess, SenderConfig{RoutingKey: q, DeliveryMode: mode})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Send(ctx, ports.OutboundMessage{Envelope: messaging.NewEnvelope("s", nil)}); err != nil {
			t.Fatal(err)
		}
		d, ok, err := a.channel().Get(q, true)
		if err != nil || !ok {
			t.Fatalf("Get: %v %v", ok, err)
		}
		got = append(got, d.DeliveryMode)
		_ = s.Close(ctx)
	}
	if diff := cmp.Diff([]uint8{amqp.Persistent, amqp.Transient}, got); diff != "" {
		t.Errorf("delivery modes (-want +got):\n%s", diff)
	}
}

// TestSenderWaitsForReconnect sends while the connection is down: the
// send waits for the session to come back within its context.
func TestSenderWaitsForReconnect(t *testing.T) {
	url := brokerURL()
	requireBroker(t, url)
	a := newAdmin(t, url)
	q := uniqueName(t, "reconnect")
	a.deleteOnCleanup([]string{q}, nil)
	sess := newTestSession(t, url, Topology{Queues: []QueueSpec{{Name: q}}})
	s, err := NewSender(sess, SenderConfig{RoutingKey: q})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	msg := ports.OutboundMessage{Envelope: messaging.NewEnvelope("s", []byte("1"))}
	if err := s.Send(ctx, msg); err != nil {
		t.Fatal(err)
	}
	sess.dropConnection()
	if err := s.Send(ctx, msg); err != nil {
		t.Fatalf("Send across a reconnect: %v", err)
	}
	if n, err := depth(url, q); err != nil || n != 2 {
		t.Errorf("queue holds %d messages (%v), want 2", n, err)
	}
}

// TestSendBatchLargerThanOutstanding sends batches bigger than
// max_outstanding, two at once: each must finish, every message once.
func TestSendBatchLargerThanOutstanding(t *testing.T) {
	url := brokerURL()
	requireBroker(t, url)
	a := newAdmin(t, url)
	q := uniqueName(t, "batch")
	a.deleteOnCleanup([]string{q}, nil)
	sess := newTestSession(t, url, Topology{Queues: []QueueSpec{{Name: q}}})
	s, err := NewSender(sess, SenderConfig{RoutingKey: q, MaxOutstanding: 3})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	batch := func(tag string) []ports.OutboundMessage {
		msgs := make([]ports.OutboundMessage, 10)
		for i := range msgs {
			msgs[i] = ports.OutboundMessage{Envelope: messaging.NewEnvelope("s", []byte(fmt.Sprintf("%s-%d", tag, i)))}
		}
		return msgs
	}
	errs := make(chan error, 2)
	for _, tag := range []string{"a", "b"} {
		go func() {
			res, err := s.SendBatch(ctx, batch(tag))
			for _, r := range res {
				err = errors.Join(err, r.Err)
			}
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatalf("SendBatch: %v", err)
		}
	}
	if n, err := depth(url, q); err != nil || n != 20 {
		t.Errorf("queue holds %d messages (%v), want 20", n, err)
	}
}
