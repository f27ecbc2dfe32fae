package amqp091

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/gobridge-oss/gobridge/core/messaging"
)

// deliveryOf turns a publishing into the delivery a consumer would see.
func deliveryOf(p amqp.Publishing, exchange, key string) amqp.Delivery {
	return amqp.Delivery{
		Headers: p.Headers, ContentType: p.ContentType, ContentEncoding: p.ContentEncoding,
		DeliveryMode: p.DeliveryMode, Priority: p.Priority, CorrelationId: p.CorrelationId,
		ReplyTo: p.ReplyTo, Expiration: p.Expiration, MessageId: p.MessageId, Timestamp: p.Timestamp,
		Type: p.Type, UserId: p.UserId, AppId: p.AppId, Exchange: exchange, RoutingKey: key, Body: p.Body,
	}
}

func TestWireRoundTrip(t *testing.T) {
	now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	env := messaging.NewEnvelope("orders.created", []byte{0, 1, 2, 255})
	env.CreatedAt = now.Add(-time.Minute).Truncate(time.Second)
	env.ExpiresAt = now.Add(90 * time.Second)
	env.Headers = map[string]any{
		"app":                    "shop",
		"n":                      42,
		"nested":                 map[string]any{"k": []string{"a", "b"}},
		HeaderCorrelationID:      "corr-1",
		HeaderContentType:        "application/json",
		HeaderPriority:           int64(5),
		HeaderRoutingKey:         "from.the.source",
		HeaderUserID:             "someone",
		"x-delivery-count":       int64(3),
		messaging.HeaderTenantID: "acme",
		messaging.HeaderRouteID:  "route-1",
	}
	p := toPublishing(env, amqp.Persistent, "gobridge", false, now, nil)
	if p.Expiration != "90000" || p.CorrelationId != "corr-1" || p.ContentType != "application/json" ||
		p.Priority != 5 || p.AppId != "gobridge" || p.UserId != "" || p.DeliveryMode != amqp.Persistent {
		t.Errorf("properties: %+v", p)
	}
	for _, k := range []string{HeaderRoutingKey, HeaderUserID, "x-delivery-count", HeaderCorrelationID, messaging.HeaderRouteID} {
		if _, ok := p.Headers[k]; ok {
			t.Errorf("header %s was published", k)
		}
	}
	if err := p.Headers.Validate(); err != nil {
		t.Fatalf("headers are not a valid AMQP table: %v", err)
	}
	d := deliveryOf(p, "events", "orders.eu")
	in := toEnvelope(&d, func() time.Time { return now })
	got := in.env
	if got.ID != env.ID || got.Subject != env.Subject || !got.CreatedAt.Equal(env.CreatedAt) || !got.ExpiresAt.Equal(env.ExpiresAt) {
		t.Errorf("got ID %q subject %q created %v expires %v", got.ID, got.Subject, got.CreatedAt, got.ExpiresAt)
	}
	want := map[string]any{
		"app": "shop", "n": int64(42), "nested": map[string]any{"k": []any{"a", "b"}},
		HeaderCorrelationID: "corr-1", HeaderContentType: "application/json", HeaderPriority: int64(5),
		HeaderAppID: "gobridge", HeaderRoutingKey: "orders.eu", HeaderExchange: "events",
		messaging.HeaderTenantID: "acme",
	}
	if diff := cmp.Diff(want, got.Headers); diff != "" {
		t.Errorf("headers (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(env.Payload(), got.Payload()); diff != "" {
		t.Errorf("payload (-want +got):\n%s", diff)
	}
}

func TestInboundRetryBookkeeping(t *testing.T) {
	rs := newRetrySigner("a signing key of some length", "", "q")
	st := retryStamp{count: 2, routingKey: "orig.key", exchange: "orig-ex"}
	d := amqp.Delivery{MessageId: "m-1", RoutingKey: "q", Redelivered: true, Body: []byte("b"), Headers: amqp.Table{
		messaging.SubjectCarrier: []byte("s"), HeaderRetryCount: int64(2),
		HeaderRetryRoutingKey: "orig.key", HeaderRetryExchange: "orig-ex", "x-delivery-count": int64(1),
		HeaderRetrySignature: rs.sign(st, "m-1", []byte("b")),
	}}
	in := fillEnvelope(&d, new(messaging.Envelope), time.Now, rs)
	dl := &delivery{raw: d, in: in}
	n, ok := dl.RedeliveryCount()
	got := []any{in.env.Subject, in.env.Headers[HeaderRoutingKey], in.env.Headers[HeaderExchange], n, ok,
		in.env.Headers[HeaderRetryCount] == nil, in.env.Headers[HeaderRetrySignature] == nil}
	if diff := cmp.Diff([]any{"s", "orig.key", "orig-ex", 3, true, true, true}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	d.Headers = amqp.Table{}
	dl = &delivery{raw: d, in: toEnvelope(&d, time.Now)}
	if n, ok := dl.RedeliveryCount(); n != 1 || !ok {
		t.Errorf("classic redelivery without counts = %d, %v; want 1, true", n, ok)
	}
	if dl.in.env.ID != "m-1" {
		t.Errorf("ID %q", dl.in.env.ID)
	}
}

// TestRetryStampNeedsItsOwnSignature: retry headers count only with the
// signature made for this queue, message, body and stamp by this key.
func TestRetryStampNeedsItsOwnSignature(t *testing.T) {
	rs := newRetrySigner("a signing key of some length", "", "q")
	st := retryStamp{count: 2, routingKey: "orig.key", exchange: "orig-ex"}
	good := rs.sign(st, "m-1", []byte("b"))
	tests := []struct {
		name string
		rs   *retrySigner
		st   retryStamp
		id   string
		body string
		sig  string
		want bool
	}{
		{"the signed copy", rs, st, "m-1", "b", good, true},
		{"no signature", rs, st, "m-1", "b", "", false},
		{"no signer", nil, st, "m-1", "b", good, false},
		{"another body", rs, st, "m-1", "B", good, false},
		{"another message", rs, st, "m-2", "b", good, false},
		{"another count", rs, retryStamp{count: 1, routingKey: "orig.key", exchange: "orig-ex"}, "m-1", "b", good, false},
		{"another routing key", rs, retryStamp{count: 2, routingKey: "other", exchange: "orig-ex"}, "m-1", "b", good, false},
		{"another queue", newRetrySigner("a signing key of some length", "", "q2"), st, "m-1", "b", good, false},
		{"another key", newRetrySigner("another signing key here", "", "q"), st, "m-1", "b", good, false},
		{"a URL-derived key", newRetrySigner("", "amqp://bridge:pw@h/", "q"), st, "m-1", "b", good, false},
	}
	for _, tt := range tests {
		if got := tt.rs.verify(tt.st, tt.id, []byte(tt.body), tt.sig); got != tt.want {
			t.Errorf("%s: verify = %v, want %v", tt.name, got, tt.want)
		}
	}
	a := newRetrySigner("", "amqp://bridge:pw@h1/", "q")
	b := newRetrySigner("", "amqp://bridge:pw@h2/vhost", "q")
	c := newRetrySigner("", "amqp://bridge:other@h1/", "q")
	if sig := a.sign(st, "m", nil); !b.verify(st, "m", nil, sig) || c.verify(st, "m", nil, sig) {
		t.Error("the URL-derived key must follow the credentials, and only them")
	}
	x, y := newRetrySigner("", "amqp://h/", "q"), newRetrySigner("", "amqp://h/", "q")
	if x.verify(st, "m", nil, y.sign(st, "m", nil)) {
		t.Error("two receivers without a password share a key")
	}
}

func TestTableConversion(t *testing.T) {
	tb, err := toTable(map[string]any{"i": 1, "u": uint(7), "d": time.Second, "m": map[string]string{"a": "b"}})
	if err != nil {
		t.Fatal(err)
	}
	want := amqp.Table{"i": int64(1), "u": int64(7), "d": "1s", "m": amqp.Table{"a": "b"}}
	if diff := cmp.Diff(want, tb); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, err := toTable(map[string]any{"big": ^uint64(0)}); err == nil {
		t.Error("an unsigned value above int64 was accepted")
	}
	got := fromTable(amqp.Table{"dec": amqp.Decimal{Scale: 2, Value: 1234}, "t": amqp.Table{"x": []any{amqp.Table{}}}})
	if diff := cmp.Diff(map[string]any{"dec": "12.34", "t": map[string]any{"x": []any{map[string]any{}}}}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
