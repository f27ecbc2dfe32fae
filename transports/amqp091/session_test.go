package amqp091

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

func TestSessionStartFailures(t *testing.T) {
	requireBroker(t, brokerURL())
	port := "127.0.0.1:1" // nothing listens on port 1
	if !freePort(port) {
		t.Skip("port 1 answers here")
	}
	cases := []struct {
		name  string
		url   string
		class fault.Class
		code  fault.Code
	}{
		{"wrong password", "amqp://guest:wrong@127.0.0.1:5672/", fault.ClassPermanent, fault.CodeNotAuthorized},
		{"nothing listening", "amqp://guest:guest@" + port + "/", fault.ClassTransient, fault.CodeConnectionLost},
		{"unknown vhost", "amqp://guest:guest@127.0.0.1:5672/no-such-vhost", fault.ClassPermanent, fault.CodeNotAuthorized},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := NewSession(SessionConfig{URL: c.url, Reconnect: ReconnectConfig{Initial: time.Second}})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			err = s.Start(ctx)
			got := []any{fault.ClassOf(err), fault.CodeOf(err)}
			if diff := cmp.Diff([]any{c.class, c.code}, got); diff != "" {
				t.Errorf("Start = %v (-want +got):\n%s", err, diff)
			}
			if h := s.Health(ctx); h.Status != ports.SessionDown || h.Connected {
				t.Errorf("health %+v, want down", h)
			}
			if err := s.Close(ctx); err != nil {
				t.Errorf("Close: %v", err)
			}
			if _, open := <-s.Events(); open {
				// Drain: events before Close may be buffered.
				for range s.Events() {
				}
			}
		})
	}
}

// TestSessionReconnectRedeclares drops the connection and checks that the
// session comes back with its topology declared again, reporting the
// transitions as events.
func TestSessionReconnectRedeclares(t *testing.T) {
	url := brokerURL()
	requireBroker(t, url)
	a := newAdmin(t, url)
	q := uniqueName(t, "topo")
	a.deleteOnCleanup([]string{q}, nil)
	s := newTestSession(t, url, Topology{Queues: []QueueSpec{{Name: q, Type: "quorum", DeliveryLimit: 5}}})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if h := s.Health(ctx); h.Status != ports.SessionUp || !h.Connected {
		t.Fatalf("health after Start: %+v", h)
	}
	if _, err := a.channel().QueueDelete(q, false, false, false); err != nil {
		t.Fatal(err)
	}
	s.dropConnection()
	var kinds []ports.SessionEventKind
	for len(kinds) == 0 || kinds[len(kinds)-1] != ports.EventConnected || len(kinds) < 2 {
		select {
		case ev := <-s.Events():
			kinds = append(kinds, ev.Kind)
		case <-ctx.Done():
			t.Fatalf("events so far %v", kinds)
		}
	}
	if diff := cmp.Diff([]ports.SessionEventKind{ports.EventConnected, ports.EventConnected}, kinds); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if _, err := a.channel().QueueDeclarePassive(q, true, false, false, false, nil); err != nil {
		t.Errorf("queue not declared again after the reconnect: %v", err)
	}
}

func TestSessionReconcile(t *testing.T) {
	url := brokerURL()
	requireBroker(t, url)
	a := newAdmin(t, url)
	q := uniqueName(t, "plan")
	a.deleteOnCleanup([]string{q}, nil)
	s := newTestSession(t, url, Topology{Queues: []QueueSpec{{Name: q}}})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := s.Reconcile(ctx, ports.SessionPlan{Subscriptions: []ports.Subscription{{Source: q}}, Publishers: []string{"", "amq.topic"}}); err != nil {
		t.Fatalf("Reconcile: %v", err)
	}
	if h := s.Health(ctx); h.Status != ports.SessionUp || !h.Subscribed {
		t.Errorf("health %+v, want up and subscribed", h)
	}
	err := s.Reconcile(ctx, ports.SessionPlan{Publishers: []string{"no-such-exchange-" + randomSuffix()}})
	if fault.CodeOf(err) != fault.CodeNotFound {
		t.Errorf("Reconcile with a missing exchange = %v, want NOT_FOUND", err)
	}
	if h := s.Health(ctx); h.Status != ports.SessionDegraded {
		t.Errorf("health %+v, want degraded", h)
	}
}

func TestClosedSessionRefusesWork(t *testing.T) {
	s, err := NewSession(SessionConfig{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	snd, _ := NewSender(s, SenderConfig{})
	err = snd.Send(ctx, ports.OutboundMessage{Envelope: messaging.NewEnvelope("s", nil), Address: "x"})
	if !fault.IsRecoverable(err) || fault.CodeOf(err) != fault.CodeUnavailable {
		t.Errorf("Send on a closed session = %v, want transient UNAVAILABLE", err)
	}
	if err := s.Start(ctx); fault.CodeOf(err) != fault.CodeUnavailable {
		t.Errorf("Start after Close = %v", err)
	}
}

// TestCloseDuringHandshake closes a session whose connection attempt is
// stuck in the AMQP handshake (the server accepts TCP and never answers):
// Close stops waiting when its context ends, and still closes the event
// channel and reports the session closed.
func TestCloseDuringHandshake(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0") // never accepts: the kernel completes TCP, nobody speaks AMQP
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	s, err := NewSession(SessionConfig{URL: "amqp://guest:guest@" + ln.Addr().String() + "/", DialTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	startCtx, cancelStart := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancelStart()
	if err := s.Start(startCtx); err == nil {
		t.Fatal("Start succeeded against a server that never answers")
	}
	closeCtx, cancelClose := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancelClose()
	if err := s.Close(closeCtx); fault.CodeOf(err) != fault.CodeTimeout {
		t.Errorf("Close = %v, want TIMEOUT while the handshake is pending", err)
	}
	for open := true; open; {
		select {
		case _, open = <-s.Events():
		case <-ctx.Done():
			t.Fatal("the event channel is still open after Close")
		}
	}
	// The abandoned attempt ends at its dial timeout, and must not bring
	// the health back up.
	select {
	case <-s.done:
	case <-ctx.Done():
		t.Fatal("the supervisor did not stop after its dial timeout")
	}
	if h := s.Health(ctx); h.Status != ports.SessionDown || h.Connected || h.Detail != "closed" {
		t.Errorf("health after Close = %+v, want down and closed", h)
	}
}

// TestReconnectBacksOffAfterQuickDrops drops the connection as soon as it
// is up, three times: each reconnection must wait the backoff, growing,
// rather than dial again at once.
func TestReconnectBacksOffAfterQuickDrops(t *testing.T) {
	url := brokerURL()
	requireBroker(t, url)
	noJitter := 0.0
	s, err := NewSession(SessionConfig{URL: url,
		Reconnect: ReconnectConfig{Initial: 100 * time.Millisecond, Max: time.Second, Factor: 2, Jitter: &noJitter}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	for i, least := range []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond} {
		dropped := time.Now()
		s.dropConnection()
		if err := s.waitUp(ctx); err != nil {
			t.Fatalf("reconnection %d: %v", i+1, err)
		}
		if gap := time.Since(dropped); gap < least {
			t.Errorf("reconnection %d came after %v, want at least %v", i+1, gap, least)
		}
	}
}
