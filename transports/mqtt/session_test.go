package mqtt

import (
	"context"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/eclipse/paho.golang/autopaho"
	"github.com/eclipse/paho.golang/paho"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// collect runs r until the test ends and returns a channel of the
// deliveries it acknowledged.
func collect(t *testing.T, r *Receiver) <-chan *messaging.Envelope {
	t.Helper()
	ch := make(chan *messaging.Envelope, 100)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = r.Run(ctx, func(ctx context.Context, d ports.Delivery) error {
			ch <- d.Envelope()
			return d.Ack(ctx)
		})
	}()
	t.Cleanup(func() { cancel(); <-done })
	return ch
}

func next(ctx context.Context, t *testing.T, ch <-chan *messaging.Envelope) *messaging.Envelope {
	t.Helper()
	select {
	case env := <-ch:
		return env
	case <-ctx.Done():
		t.Fatal("no message")
	}
	return nil
}

// TestSessionAgainstMosquitto covers the session's life with a real
// broker: health and events, Reconcile, messages nobody takes, a message
// with too many user properties, QoS 0, no-local and shared
// subscriptions.
func TestSessionAgainstMosquitto(t *testing.T) {
	requireBroker(t)
	ctx := testContext(t)
	base := "gobridge-it/session/" + unique()
	meter := telemetry.NewMemory()
	s := newSession(t, SessionConfig{MaxUserProperties: 4}, WithMeter(meter), WithName("s1"))
	r, err := NewReceiver(s, ReceiverConfig{Subscriptions: []SubscriptionConfig{
		{Topic: base + "/q0", QoS: IntPtr(0)},
		{Topic: base + "/local", NoLocal: true},
		{Topic: "$share/g-" + unique() + "/" + base + "/shared/+"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if h := s.Health(ctx); h.Status != ports.SessionDown {
		t.Errorf("health before Start: %+v", h)
	}
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if e := <-s.Events(); e.Kind != ports.EventConnected {
		t.Errorf("first event %v, want connected", e.Kind)
	}
	waitFor(ctx, t, "health up", func() bool { h := s.Health(ctx); return h.Status == ports.SessionUp && h.Subscribed })
	if err := s.Reconcile(ctx, ports.SessionPlan{Subscriptions: []ports.Subscription{{Source: base + "/plan/#", QoS: 1}}}); err != nil {
		t.Fatal(err)
	}
	got := collect(t, r)

	other := startSession(t, SessionConfig{})
	mine, _ := NewSender(s, SenderConfig{})
	theirs, _ := NewSender(other, SenderConfig{})
	send := func(snd *Sender, topic, body string) {
		t.Helper()
		if err := snd.Send(ctx, ports.OutboundMessage{Envelope: messaging.NewEnvelope("s", []byte(body)), Address: topic}); err != nil {
			t.Fatal(err)
		}
	}

	send(theirs, base+"/plan/x", "nobody takes this")
	waitFor(ctx, t, "the unrouted message", func() bool { return meter.Value("gobridge_mqtt_unrouted_total", "s1") == 1 })

	many := messaging.NewEnvelope("s", []byte("too many properties"))
	for i := range 10 {
		many.SetHeader(fmt.Sprintf("h%d", i), "v")
	}
	if err := theirs.Send(ctx, ports.OutboundMessage{Envelope: many, Address: base + "/q0"}); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, "the dropped message", func() bool {
		return meter.Value("gobridge_mqtt_too_many_user_properties_total", "s1") == 1
	})

	send(mine, base+"/local", "my own, not echoed")
	send(theirs, base+"/local", "from elsewhere")
	if env := next(ctx, t, got); string(env.PayloadView()) != "from elsewhere" {
		t.Errorf("no-local: got %q first", env.PayloadView())
	}
	send(theirs, base+"/q0", "best effort")
	if env := next(ctx, t, got); string(env.PayloadView()) != "best effort" || env.Headers[HeaderTopic] != base+"/q0" {
		t.Errorf("QoS 0: got %q on %v", env.PayloadView(), env.Headers[HeaderTopic])
	}
	send(theirs, base+"/shared/1", "shared")
	if env := next(ctx, t, got); string(env.PayloadView()) != "shared" {
		t.Errorf("shared subscription: got %q", env.PayloadView())
	}

	// An empty plan unsubscribes what only the plan wanted.
	if err := s.Reconcile(ctx, ports.SessionPlan{}); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.subs.appliedCopy()[base+"/plan/#"]; ok {
		t.Error("the plan's subscription is still applied after an empty plan")
	}
	if !s.Health(ctx).Subscribed {
		t.Error("the receiver's subscriptions are no longer applied")
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if h := s.Health(ctx); h.Status != ports.SessionDown || h.Detail != "closed" {
		t.Errorf("health after Close: %+v", h)
	}
	for range s.Events() { // closed by Close
	}
}

// TestRunEndsWhenTheSessionCloses checks that a receiver does not outlive
// its session.
func TestRunEndsWhenTheSessionCloses(t *testing.T) {
	requireBroker(t)
	ctx := testContext(t)
	s := newSession(t, SessionConfig{})
	r, err := NewReceiver(s, ReceiverConfig{Subscriptions: []SubscriptionConfig{{Topic: "gobridge-it/close/" + unique()}}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx, func(context.Context, ports.Delivery) error { return nil }) }()
	waitFor(ctx, t, "the connection", func() bool { return s.Health(ctx).Connected })
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if fault.CodeOf(err) != fault.CodeUnavailable {
			t.Errorf("Run = %v, want UNAVAILABLE", err)
		}
	case <-ctx.Done():
		t.Fatal("Run did not return after Close")
	}
	if err := s.Start(ctx); fault.CodeOf(err) != fault.CodeUnavailable {
		t.Errorf("Start after Close = %v, want UNAVAILABLE", err)
	}
}

// TestQoS2EndToEnd publishes with QoS 2 (the send returns after PUBCOMP)
// to a QoS 2 subscription (PUBREC only after the ack) and checks the
// message arrives once.
func TestQoS2EndToEnd(t *testing.T) {
	requireBroker(t)
	ctx := testContext(t)
	topic := "gobridge-it/qos2/" + unique()
	s := newSession(t, SessionConfig{ClientID: "qos2-" + unique(), SessionExpiry: 30e9})
	r, err := NewReceiver(s, ReceiverConfig{Subscriptions: []SubscriptionConfig{{Topic: topic, QoS: IntPtr(2)}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, "the subscription", func() bool { return s.Health(ctx).Subscribed })
	got := collect(t, r)
	snd, _ := NewSender(startSession(t, SessionConfig{}), SenderConfig{DefaultTopic: topic, QoS: IntPtr(2)})
	for i := range 5 {
		if err := snd.Send(ctx, ports.OutboundMessage{Envelope: numberedEnvelope(i)}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 5 {
		if env := next(ctx, t, got); string(env.PayloadView()) != fmt.Sprintf("m-%05d", i) {
			t.Errorf("message %d: %q", i, env.PayloadView())
		}
	}
}

// TestFirstSendStartsTheSession covers a route with an MQTT sender and no
// MQTT receiver.
func TestFirstSendStartsTheSession(t *testing.T) {
	requireBroker(t)
	ctx := testContext(t)
	topic := "gobridge-it/lazy/" + unique()
	obs := newObserver(t, topic)
	snd, err := NewSender(newSession(t, SessionConfig{}), SenderConfig{DefaultTopic: topic})
	if err != nil {
		t.Fatal(err)
	}
	if err := snd.Send(ctx, ports.OutboundMessage{Envelope: numberedEnvelope(7)}); err != nil {
		t.Fatal(err)
	}
	if got, err := obs.receive(ctx, topic); err != nil || string(got.Payload) != "m-00007" {
		t.Errorf("received %q, %v", got.Payload, err)
	}
}

// TestFirstSendKeepsItsQoS checks that the send that starts a session
// publishes with the configured QoS: no broker limit is known before the
// first CONNACK, and none may be assumed.
func TestFirstSendKeepsItsQoS(t *testing.T) {
	requireBroker(t)
	ctx := testContext(t)
	topic := "gobridge-it/first-qos/" + unique()
	qos := make(chan byte, 4)
	u, _ := url.Parse("mqtt://" + brokerAddr)
	cctx, cancel := context.WithCancel(context.Background())
	cm, err := autopaho.NewConnection(cctx, autopaho.ClientConfig{
		ServerUrls: []*url.URL{u}, KeepAlive: 30, CleanStartOnInitialConnection: true,
		ClientConfig: paho.ClientConfig{ClientID: "qos-obs-" + unique(),
			OnPublishReceived: []func(paho.PublishReceived) (bool, error){func(pr paho.PublishReceived) (bool, error) {
				qos <- pr.Packet.QoS
				return true, nil
			}}},
	})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		dctx, dcancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer dcancel()
		_ = cm.Disconnect(dctx)
		cancel()
	})
	if err := cm.AwaitConnection(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := cm.Subscribe(ctx, &paho.Subscribe{Subscriptions: []paho.SubscribeOptions{{Topic: topic, QoS: 1}}}); err != nil {
		t.Fatal(err)
	}
	snd, err := NewSender(newSession(t, SessionConfig{}), SenderConfig{DefaultTopic: topic})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if err := snd.Send(ctx, ports.OutboundMessage{Envelope: numberedEnvelope(i)}); err != nil {
			t.Fatal(err)
		}
		select {
		case q := <-qos:
			if q != 1 {
				t.Errorf("send %d arrived with QoS %d, want 1", i, q)
			}
		case <-ctx.Done():
			t.Fatalf("send %d did not arrive", i)
		}
	}
}
