package amqp091

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// headerNames lists a table's keys, sorted.
func headerNames(h amqp.Table) []string {
	out := []string{}
	for k := range h {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestPublishingLeavesOutWhatNoOneReads checks which headers reach the
// wire: an empty subject travels as no header at all, and minimal_headers
// leaves out the bridge-to-bridge x-bridge.* headers but nothing else.
func TestPublishingLeavesOutWhatNoOneReads(t *testing.T) {
	now := time.Date(2026, 12, 4, 15, 0, 0, 0, time.UTC)
	headers := func() map[string]any {
		return map[string]any{
			"app":                         "shop",
			"mqtt.topic":                  "bench/in",
			messaging.HeaderTraceParent:   "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
			messaging.HeaderCorrelationID: "corr-1",
			messaging.HeaderTenantID:      "acme",
			"X-Bridge.Causation-Id":       "cause-1",
			messaging.HeaderRouteID:       "route-1",
			messaging.SubjectCarrier:      "stale", // a header of that name never outlives the subject
			HeaderRoutingKey:              "from.the.source",
		}
	}
	cases := []struct {
		name    string
		subject string
		minimal bool
		want    []string
	}{
		{"empty subject", "", false, []string{"X-Bridge.Causation-Id", "app", "mqtt.topic", "traceparent", "x-bridge.correlation-id", "x-bridge.tenant-id"}},
		{"subject", "orders.created", false, []string{"X-Bridge.Causation-Id", "app", "gobridge.subject", "mqtt.topic", "traceparent", "x-bridge.correlation-id", "x-bridge.tenant-id"}},
		{"minimal, empty subject", "", true, []string{"app", "mqtt.topic", "traceparent"}},
		{"minimal, subject", "orders.created", true, []string{"app", "gobridge.subject", "mqtt.topic", "traceparent"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := messaging.NewEnvelope(c.subject, []byte("x"))
			env.CreatedAt = now.Add(-time.Second)
			env.Headers = headers()
			p := toPublishing(env, amqp.Persistent, "", c.minimal, now, nil)
			if diff := cmp.Diff(c.want, headerNames(p.Headers)); diff != "" {
				t.Errorf("headers (-want +got):\n%s", diff)
			}
			// The message ID and the timestamp travel either way: the ID
			// matches returns to their publishes, and both are properties.
			if p.MessageId != env.ID || !p.Timestamp.Equal(env.CreatedAt) {
				t.Errorf("message-id %q timestamp %v, want %q %v", p.MessageId, p.Timestamp, env.ID, env.CreatedAt)
			}
			if c.subject != "" && p.Headers[messaging.SubjectCarrier] != c.subject {
				t.Errorf("subject carrier %v, want %q", p.Headers[messaging.SubjectCarrier], c.subject)
			}
			d := deliveryOf(p, "ex", "key")
			back := toEnvelope(&d, func() time.Time { return now })
			if back.env.Subject != c.subject {
				t.Errorf("subject after the round trip %q, want %q", back.env.Subject, c.subject)
			}
		})
	}
}

// TestMinimalHeadersRoundTrip publishes through Senders with and without
// minimal_headers to RabbitMQ, reads the raw messages, and receives copies
// of them with a Receiver: an empty subject is not on the wire and comes
// back as the same empty subject; a subject survives; minimal_headers
// drops only the x-bridge.* headers.
func TestMinimalHeadersRoundTrip(t *testing.T) {
	url := brokerURL()
	requireBroker(t, url)
	a := newAdmin(t, url)
	raw, recvQ := uniqueName(t, "raw"), uniqueName(t, "recv")
	a.deleteOnCleanup([]string{raw, recvQ}, nil)
	sess := newTestSession(t, url, Topology{Queues: []QueueSpec{{Name: raw}, {Name: recvQ}}})
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()

	type seen struct {
		Subject     string
		Headers     []string
		HasID, HasT bool
	}
	cases := []struct {
		name    string
		subject string
		minimal bool
		wire    seen // the raw delivery
		env     seen // what the receiver made of it
	}{
		{"default, empty subject", "", false,
			seen{"", []string{"app", "x-bridge.correlation-id"}, true, true},
			seen{"", []string{"amqp091.exchange", "amqp091.routing-key", "app", "x-bridge.correlation-id"}, true, true}},
		{"default, subject", "orders.created", false,
			seen{"orders.created", []string{"app", "gobridge.subject", "x-bridge.correlation-id"}, true, true},
			seen{"orders.created", []string{"amqp091.exchange", "amqp091.routing-key", "app", "x-bridge.correlation-id"}, true, true}},
		{"minimal, empty subject", "", true,
			seen{"", []string{"app"}, true, true},
			seen{"", []string{"amqp091.exchange", "amqp091.routing-key", "app"}, true, true}},
		{"minimal, subject", "orders.created", true,
			seen{"orders.created", []string{"app", "gobridge.subject"}, true, true},
			seen{"orders.created", []string{"amqp091.exchange", "amqp091.routing-key", "app"}, true, true}},
	}
	recv, err := NewReceiver(sess, ReceiverConfig{Queue: recvQ}, WithName("recv"), WithMaxInFlight(4))
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan *messaging.Envelope, len(cases))
	runCtx, stop := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() {
		ran <- recv.Run(runCtx, func(ctx context.Context, d ports.Delivery) error {
			got <- d.Envelope().Clone()
			return d.Ack(ctx)
		})
	}()
	defer func() {
		stop()
		<-ran
		_ = recv.Close(context.Background())
	}()

	for _, c := range cases {
		s, err := NewSender(sess, SenderConfig{MinimalHeaders: c.minimal}, WithName("out"))
		if err != nil {
			t.Fatal(err)
		}
		env := messaging.NewEnvelope(c.subject, []byte(c.name))
		env.Headers = map[string]any{"app": "shop", messaging.HeaderCorrelationID: "corr-" + env.ID}
		for _, q := range []string{raw, recvQ} {
			if err := s.Send(ctx, ports.OutboundMessage{Envelope: env, Address: q}); err != nil {
				t.Fatalf("%s: Send to %s: %v", c.name, q, err)
			}
		}
		_ = s.Close(ctx)

		d, ok, err := a.channel().Get(raw, true)
		if err != nil || !ok {
			t.Fatalf("%s: Get: %v %v", c.name, ok, err)
		}
		subject, _ := d.Headers[messaging.SubjectCarrier].(string)
		wire := seen{subject, headerNames(d.Headers), d.MessageId == env.ID, !d.Timestamp.IsZero()}
		if diff := cmp.Diff(c.wire, wire); diff != "" {
			t.Errorf("%s: on the wire (-want +got):\n%s", c.name, diff)
		}

		var e *messaging.Envelope
		select {
		case e = <-got:
		case <-ctx.Done():
			t.Fatalf("%s: not received", c.name)
		}
		hs := amqp.Table{}
		for k, v := range e.Headers {
			hs[k] = v
		}
		back := seen{e.Subject, headerNames(hs), e.ID == env.ID, !e.CreatedAt.IsZero()}
		if diff := cmp.Diff(c.env, back); diff != "" {
			t.Errorf("%s: received (-want +got):\n%s", c.name, diff)
		}
	}
}
