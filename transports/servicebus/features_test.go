package servicebus

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus"
	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/telemetry"
	"github.com/gobridge-oss/gobridge/transports/servicebus/sbemu"
)

// firstDelivery runs r until it hands out one delivery, and returns it
// with the function that stops Run.
func firstDelivery(t *testing.T, r *Receiver) (ports.Delivery, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	got := make(chan ports.Delivery, 1)
	ran := make(chan error, 1)
	go func() {
		ran <- r.Run(ctx, func(_ context.Context, d ports.Delivery) error {
			select {
			case got <- d:
				return nil
			default:
				return errors.New("only one wanted")
			}
		})
	}()
	stop := func() { cancel(); <-ran }
	select {
	case d := <-got:
		return d, stop
	case err := <-ran:
		t.Fatalf("Run ended: %v", err)
	case <-time.After(20 * time.Second):
		stop()
		t.Fatal("no delivery")
	}
	return nil, nil
}

// With on_permanent: dead_letter, Reject moves the message to the
// entity's dead-letter subqueue with gobridge:<category> as its reason
// and the fault code as its description.
func TestRejectDeadLettersWithReason(t *testing.T) {
	_, cc := startEmulator(t, queue("q", 5*time.Second))
	c := newTestClient(t, cc)
	s, _ := NewSender(c, SenderConfig{Client: cc, Entity: "q"})
	if err := s.Send(t.Context(), ports.OutboundMessage{Envelope: messaging.NewEnvelope("s", []byte("poison"))}); err != nil {
		t.Fatal(err)
	}
	r, err := NewReceiver(c, ReceiverConfig{Client: cc, Queue: "q", OnPermanent: PermanentDeadLetter})
	if err != nil {
		t.Fatal(err)
	}
	d, stop := firstDelivery(t, r)
	defer stop()
	if err := d.(ports.Rejecter).Reject(t.Context(), ports.DLQPermanent, fault.ErrNotFound.WithMessage("the payload's secret")); err != nil {
		t.Fatal(err)
	}
	dlq, err := c.NewReceiverForQueue("q", &azservicebus.ReceiverOptions{SubQueue: azservicebus.SubQueueDeadLetter})
	if err != nil {
		t.Fatal(err)
	}
	defer dlq.Close(context.Background())
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	msgs, err := dlq.ReceiveMessages(ctx, 1, nil)
	if err != nil || len(msgs) != 1 {
		t.Fatalf("dead-letter queue: %v %v", msgs, err)
	}
	env := fromReceived(msgs[0], time.Now())
	want := map[string]any{HeaderDeadLetterReason: "gobridge:permanent", HeaderDeadLetterDescription: "NOT_FOUND", "payload": "poison"}
	got := map[string]any{HeaderDeadLetterReason: env.Headers[HeaderDeadLetterReason], HeaderDeadLetterDescription: env.Headers[HeaderDeadLetterDescription],
		"payload": string(env.PayloadView())}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("dead-lettered message (-want +got):\n%s", diff)
	}
}

// A NotBefore becomes the scheduled enqueue time: the message waits in
// the queue until then.
func TestSendScheduled(t *testing.T) {
	e, cc := startEmulator(t, queue("q", 5*time.Second))
	c := newTestClient(t, cc)
	s, _ := NewSender(c, SenderConfig{Client: cc, Entity: "q"})
	at := time.Now().Add(1500 * time.Millisecond)
	if err := s.Send(t.Context(), ports.OutboundMessage{Envelope: messaging.NewEnvelope("s", []byte("later")), NotBefore: at}); err != nil {
		t.Fatal(err)
	}
	counts, err := e.Counts(t.Context(), "q")
	if err != nil {
		t.Fatal(err)
	}
	if counts.Scheduled != 1 || counts.Active != 0 {
		t.Errorf("counts right after the send %+v, want one scheduled message", counts)
	}
	dr := newDrain(t, c)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	m, err := dr.next(ctx, "q")
	if err != nil {
		t.Fatal(err)
	}
	if now := time.Now(); now.Before(at.Add(-100*time.Millisecond)) || string(m.Body) != "later" {
		t.Errorf("got %q at %v, scheduled for %v", m.Body, now, at)
	}
}

// A topic's subscriptions each get the message; a receiver reads one.
func TestTopicSubscription(t *testing.T) {
	_, cc := startEmulator(t, sbemu.Entity{Name: "t", Subscriptions: []sbemu.Subscription{
		{Name: "s1", LockDuration: 5 * time.Second}, {Name: "s2", LockDuration: 5 * time.Second}}})
	c := newTestClient(t, cc)
	s, _ := NewSender(c, SenderConfig{Client: cc, Entity: "t"})
	if err := s.Send(t.Context(), ports.OutboundMessage{Envelope: messaging.NewEnvelope("topic.subject", []byte("fan"))}); err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"s1", "s2"} {
		r, err := NewReceiver(c, ReceiverConfig{Client: cc, Topic: "t", Subscription: sub})
		if err != nil {
			t.Fatal(err)
		}
		d, stop := firstDelivery(t, r)
		if got := d.Envelope(); got.Subject != "topic.subject" || string(got.PayloadView()) != "fan" {
			t.Errorf("%s: subject %q payload %q", sub, got.Subject, got.PayloadView())
		}
		if k := d.(ports.DeliveryKeyer).DeliveryKey(); k == "" || k[:len("t/Subscriptions/"+sub)] != "t/Subscriptions/"+sub {
			t.Errorf("%s: delivery key %q", sub, k)
		}
		if err := d.Ack(t.Context()); err != nil {
			t.Error(err)
		}
		stop()
	}
}

// SendBatch splits what does not fit one message batch and still
// reports one result per message, in order.
func TestSendBatchSplitsFullBatches(t *testing.T) {
	_, cc := startEmulator(t, queue("q", 5*time.Second))
	c := newTestClient(t, cc)
	mem := telemetry.NewMemory()
	s, _ := NewSender(c, SenderConfig{Client: cc, Entity: "q"}, WithMeter(mem), WithName("out"))
	var msgs []ports.OutboundMessage
	var want []string
	for i := range 10 {
		p := fmt.Sprintf("%02d-%s", i, bytes.Repeat([]byte("x"), 100*1024))
		want = append(want, p[:2])
		msgs = append(msgs, ports.OutboundMessage{Envelope: messaging.NewEnvelope("big", []byte(p))})
	}
	res, err := s.SendBatch(t.Context(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if r.Index != i || r.Err != nil {
			t.Errorf("result %d: %+v", i, r)
		}
	}
	if n := mem.Value("gobridge_servicebus_send_calls_total", "out"); n < 4 {
		t.Errorf("%v send calls for 1 MB in 256 KiB batches, want at least 4", n)
	}
	dr := newDrain(t, c)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	var got []string
	for range 10 {
		m, err := dr.next(ctx, "q")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(m.Body[:2]))
	}
	// The reading SDK releases what reaches it between two receives, which
	// can reorder: compare the sets.
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("arrivals (-sent +received):\n%s", diff)
	}
}

// An entity that does not exist is a permanent NOT_FOUND, for a send and
// for a receiver's Run.
func TestMissingEntity(t *testing.T) {
	_, cc := startEmulator(t, queue("q", 5*time.Second))
	c := newTestClient(t, cc)
	s, _ := NewSender(c, SenderConfig{Client: cc})
	err := s.Send(t.Context(), ports.OutboundMessage{Envelope: messaging.NewEnvelope("s", nil), Address: "nope"})
	if fault.ClassOf(err) != fault.ClassPermanent || fault.CodeOf(err) != fault.CodeNotFound {
		t.Errorf("send to a missing queue: %v (class %v code %s), want permanent NOT_FOUND", err, fault.ClassOf(err), fault.CodeOf(err))
	}
	for _, cfg := range []ReceiverConfig{{Client: cc, Queue: "nope"}, {Client: cc, Queue: "nope", Sessions: true}} {
		r, _ := NewReceiver(c, cfg)
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		err := r.Run(ctx, func(context.Context, ports.Delivery) error { return nil })
		cancel()
		if fault.CodeOf(err) != fault.CodeNotFound {
			t.Errorf("Run on a missing queue (sessions %v) = %v, want NOT_FOUND", cfg.Sessions, err)
		}
	}
}

// Several links share the in-flight limit: every message is handed out
// once and completed, never more than max_in_flight at a time.
func TestReceiverLinks(t *testing.T) {
	e, cc := startEmulator(t, queue("q", 5*time.Second))
	c := newTestClient(t, cc)
	s, _ := NewSender(c, SenderConfig{Client: cc, Entity: "q"})
	const n, window = 60, 7
	var msgs []ports.OutboundMessage
	for i := range n {
		msgs = append(msgs, ports.OutboundMessage{Envelope: messaging.NewEnvelope("s", fmt.Appendf(nil, "%02d", i))})
	}
	if _, err := s.SendBatch(t.Context(), msgs); err != nil {
		t.Fatal(err)
	}
	r, err := NewReceiver(c, ReceiverConfig{Client: cc, Queue: "q", Links: 3}, WithMaxInFlight(window))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[string]int{}
	held, most := 0, 0
	ctx, cancel := context.WithCancel(t.Context())
	ran := make(chan error, 1)
	go func() {
		ran <- r.Run(ctx, func(_ context.Context, d ports.Delivery) error {
			mu.Lock()
			seen[string(d.Envelope().PayloadView())]++
			held++
			most = max(most, held)
			mu.Unlock()
			go func() {
				defer d.(ports.SettleObserver).Settled(ports.Settlement{})
				mu.Lock()
				held--
				mu.Unlock()
				if err := d.Ack(context.Background()); err != nil {
					t.Error(err)
				}
			}()
			return nil
		})
	}()
	pollUntil(t, 20*time.Second, "every message", func() bool {
		c, err := e.Counts(t.Context(), "q")
		return err == nil && c.Active == 0 && c.Locked == 0
	})
	cancel()
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != n {
		t.Errorf("%d distinct messages handed out, want %d", len(seen), n)
	}
	for k, v := range seen {
		if v != 1 {
			t.Errorf("%s handed out %d times", k, v)
		}
	}
	if most > window {
		t.Errorf("%d deliveries held at once, over max_in_flight %d", most, window)
	}
}

// A lock that expired is reported lost by Extend and by Ack, counted,
// and the message is not completed: Service Bus hands it out again.
func TestLockLost(t *testing.T) {
	const lock = 500 * time.Millisecond
	e, cc := startEmulator(t, queue("q", lock))
	c := newTestClient(t, cc)
	s, _ := NewSender(c, SenderConfig{Client: cc, Entity: "q"})
	if err := s.Send(t.Context(), ports.OutboundMessage{Envelope: messaging.NewEnvelope("s", []byte("late"))}); err != nil {
		t.Fatal(err)
	}
	mem := telemetry.NewMemory()
	r, err := NewReceiver(c, ReceiverConfig{Client: cc, Queue: "q"}, WithMeter(mem), WithName("in"), WithMaxInFlight(1))
	if err != nil {
		t.Fatal(err)
	}
	d, stop := firstDelivery(t, r)
	defer stop()
	sleep(t.Context(), 3*lock)
	if err := d.Extend(t.Context(), time.Now().Add(time.Minute)); err == nil || !lockLost(err) || !fault.IsRecoverable(err) {
		t.Errorf("Extend after the lock expired = %v, want a transient lock-lost error", err)
	}
	if err := d.Ack(t.Context()); err == nil {
		t.Error("Ack after the lock expired succeeded")
	}
	if n := mem.Value("gobridge_servicebus_lock_lost_total", "in"); n != 2 {
		t.Errorf("%v lost locks counted, want 2 (Extend and Ack)", n)
	}
	if n := mem.Value("gobridge_servicebus_settled_total", "in", outCompleted); n != 0 {
		t.Errorf("%v completions counted", n)
	}
	pollUntil(t, 5*time.Second, "the message back in the queue", func() bool {
		c, err := e.Counts(t.Context(), "q")
		return err == nil && c.Active+c.Locked == 1
	})
}
