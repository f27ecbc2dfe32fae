package mqtt

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// TestBrokerRestartLosesNoQoS1Message stops and restarts a private
// Mosquitto mid-stream. The receiver's session resumes (client id and
// session expiry) and holds some messages unacknowledged when the broker
// goes down; the publisher's session resumes too and keeps publishing
// through the outage. Every message must arrive; duplicates are allowed.
func TestBrokerRestartLosesNoQoS1Message(t *testing.T) {
	b := startPrivateBroker(t)
	ctx := testContext(t)
	var mu sync.Mutex
	const total, firstHalf, holdAfter = 300, 200, 100
	topic := "restart/" + unique()
	rs := newSession(t, SessionConfig{URLs: []string{b.url()}, ClientID: "recv-" + unique(), SessionExpiry: time.Minute})
	r, err := NewReceiver(rs, ReceiverConfig{Subscriptions: []SubscriptionConfig{{Topic: topic}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := rs.Start(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, "the subscription", func() bool { return rs.Health(ctx).Subscribed })
	kinds := map[ports.SessionEventKind]int{}
	eventsDone := make(chan struct{})
	go func() { // the session closes the channel when the test ends
		defer close(eventsDone)
		for e := range rs.Events() {
			mu.Lock()
			kinds[e.Kind]++
			mu.Unlock()
		}
	}()
	ps := startSession(t, SessionConfig{URLs: []string{b.url()}, ClientID: "pub-" + unique(), SessionExpiry: time.Minute})
	snd, err := NewSender(ps, SenderConfig{DefaultTopic: topic})
	if err != nil {
		t.Fatal(err)
	}

	var (
		got       = map[string]int{} // handed to the route, by payload
		acked     = map[string]bool{}
		held      []ports.Delivery
		restarted atomic.Bool
	)
	distinct := func() int { mu.Lock(); defer mu.Unlock(); return len(got) }
	nAcked := func() int { mu.Lock(); defer mu.Unlock(); return len(acked) }
	emit := func(_ context.Context, d ports.Delivery) error {
		mu.Lock()
		defer mu.Unlock()
		p := string(d.Envelope().PayloadView())
		got[p]++
		if !restarted.Load() && len(got) > holdAfter {
			held = append(held, d) // unacknowledged when the broker stops
			return nil
		}
		acked[p] = true
		return d.Ack(ctx)
	}
	runCtx, stopRun := context.WithCancel(ctx)
	runDone := make(chan error, 1)
	go func() { runDone <- r.Run(runCtx, emit) }()

	var sent, failures atomic.Int32
	stopped := make(chan struct{})
	pubDone := make(chan error, 1)
	go func() { pubDone <- publishAll(ctx, snd, total, firstHalf, stopped, &sent, &failures) }()

	waitFor(ctx, t, "the first half", func() bool { return sent.Load() >= firstHalf && distinct() > holdAfter })
	b.stop()
	restarted.Store(true)
	close(stopped)
	waitFor(ctx, t, "a send to fail during the outage", func() bool { return failures.Load() > 0 })
	b.start()
	waitFor(ctx, t, fmt.Sprintf("all %d messages acknowledged", total), func() bool { return nAcked() == total })
	if err := <-pubDone; err != nil {
		t.Fatal(err)
	}
	stopRun()
	if err := <-runDone; err != nil {
		t.Errorf("Run: %v", err)
	}
	mu.Lock()
	dups := 0
	for _, n := range got {
		dups += n - 1
	}
	nHeld := len(held)
	mu.Unlock()
	t.Logf("%d messages, %d held unacknowledged at the stop, %d duplicates, %d sends retried during the outage", total, nHeld, dups, failures.Load())
	if nHeld == 0 {
		t.Error("no message was held unacknowledged at the stop; the test proved nothing")
	}
	mu.Lock()
	defer mu.Unlock()
	if kinds[ports.EventDisconnected] == 0 || kinds[ports.EventReconnecting] == 0 || kinds[ports.EventConnected] < 2 {
		t.Errorf("receiver session events %v; want a disconnection, reconnection attempts and two connections", kinds)
	}
}

// publishAll sends total numbered messages, pausing after pause of them
// until resume closes, and retries each transient failure.
func publishAll(ctx context.Context, snd *Sender, total, pause int, resume <-chan struct{}, sent, failures *atomic.Int32) error {
	retry := time.NewTicker(20 * time.Millisecond)
	defer retry.Stop()
	for i := 0; i < total; {
		if i == pause {
			select {
			case <-resume:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		err := snd.Send(ctx, ports.OutboundMessage{Envelope: numberedEnvelope(i)})
		if err == nil {
			i++
			sent.Add(1)
			continue
		}
		if !fault.IsRecoverable(err) {
			return fmt.Errorf("message %d: %w", i, err)
		}
		failures.Add(1)
		select {
		case <-retry.C:
		case <-ctx.Done():
			return fmt.Errorf("message %d not sent: %w", i, err)
		}
	}
	return nil
}
