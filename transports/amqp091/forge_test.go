package amqp091

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// forgeCase is one attempt by a producer to set a header the receiver
// derives from the delivery, or to steer the retry path.
type forgeCase struct {
	name    string
	headers amqp.Table      // what the producer adds
	pub     amqp.Publishing // the real properties it sends (Headers and Body are set by the test)
	want    map[string]any  // the amqp091.* headers the envelope must show, besides routing key and exchange
	count   int             // the redelivery count the route must see
}

// amqpForgeCases lists every header the receiver derives, and the retry
// headers of the delayed-retry path, each forged by a producer.
func amqpForgeCases() []forgeCase {
	return []forgeCase{
		{name: "user id", headers: amqp.Table{HeaderUserID: "admin"}},
		{name: "user id next to the validated one", headers: amqp.Table{HeaderUserID: "admin"},
			pub: amqp.Publishing{UserId: "guest"}, want: map[string]any{HeaderUserID: "guest"}},
		{name: "user id in upper case", headers: amqp.Table{"AMQP091.User-Id": "admin"}},
		{name: "redelivered", headers: amqp.Table{HeaderRedelivered: true}},
		{name: "routing key", headers: amqp.Table{HeaderRoutingKey: "payments.refund"}},
		{name: "exchange", headers: amqp.Table{HeaderExchange: "payments"}},
		{name: "retry routing key", headers: amqp.Table{HeaderRetryRoutingKey: "payments.refund", HeaderRetryExchange: "payments"}},
		{name: "retry routing key with a made-up signature", headers: amqp.Table{HeaderRetryRoutingKey: "payments.refund",
			HeaderRetryExchange: "payments", HeaderRetryCount: int64(1), HeaderRetrySignature: "00"}},
		{name: "negative retry count", headers: amqp.Table{HeaderRetryCount: int64(-5)}},
		{name: "retry count", headers: amqp.Table{HeaderRetryCount: int64(7)}},
		{name: "retry count as text", headers: amqp.Table{HeaderRetryCount: "-1"}},
		{name: "negative delivery count", headers: amqp.Table{"x-delivery-count": int64(-3)}},
		{name: "delivery count on a first delivery", headers: amqp.Table{"x-delivery-count": int64(9)}},
		{name: "property headers without the properties", headers: amqp.Table{
			HeaderCorrelationID: "c", HeaderContentType: "text/forged", HeaderContentEncoding: "gzip",
			HeaderReplyTo: "steal", HeaderType: "t", HeaderAppID: "a", HeaderPriority: int64(9)}},
		{name: "property header next to the property", headers: amqp.Table{HeaderContentType: "text/forged"},
			pub: amqp.Publishing{ContentType: "text/plain"}, want: map[string]any{HeaderContentType: "text/plain"}},
		{name: "unknown name in the namespace", headers: amqp.Table{"amqp091.queue": "other"}},
	}
}

// derivedOf returns h's amqp091.* headers except the routing key and
// exchange.
func derivedOf(h map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range h {
		if isDerived(k) && k != HeaderRoutingKey && k != HeaderExchange {
			out[k] = v
		}
	}
	return out
}

// forgeFixture is a receiver on a queue bound to a topic exchange under
// orders.#, with one 100ms wait queue and signingKey ("": derived from the
// URL), running until the test ends.
type forgeFixture struct {
	a     *admin
	q, ex string
	cfg   ReceiverConfig
	got   chan ports.Delivery
}

func newForgeFixture(t *testing.T, ctx context.Context, signingKey string) *forgeFixture {
	t.Helper()
	url := brokerURL()
	requireBroker(t, url)
	f := &forgeFixture{a: newAdmin(t, url), q: uniqueName(t, "forge"), ex: uniqueName(t, "forge-x"),
		got: make(chan ports.Delivery, 16)}
	f.cfg = ReceiverConfig{Queue: f.q, Retry: RetryConfig{Delays: []time.Duration{100 * time.Millisecond},
		SigningKey: signingKey}}.WithDefaults()
	queues, retryEx := retryObjects(f.cfg)
	f.a.deleteOnCleanup(append(queues, f.q), []string{f.ex, retryEx})
	sess := newTestSession(t, url, Topology{
		Exchanges: []ExchangeSpec{{Name: f.ex, Type: "topic"}},
		Queues:    []QueueSpec{{Name: f.q}},
		Bindings:  []BindingSpec{{Queue: f.q, Exchange: f.ex, RoutingKey: "orders.#"}},
	})
	recv, err := NewReceiver(sess, f.cfg, WithName("forge-in"))
	if err != nil {
		t.Fatal(err)
	}
	rctx, stop := context.WithCancel(ctx)
	runDone := make(chan struct{})
	go func() {
		defer close(runDone)
		_ = recv.Run(rctx, func(_ context.Context, d ports.Delivery) error { f.got <- d; return nil })
	}()
	t.Cleanup(func() { stop(); <-runDone; _ = recv.Close(context.Background()) })
	return f
}

// next returns the next delivery, failing the test when none comes.
func (f *forgeFixture) next(ctx context.Context, t *testing.T) ports.Delivery {
	t.Helper()
	select {
	case d := <-f.got:
		return d
	case <-ctx.Done():
		t.Fatal("no delivery")
		return nil
	}
}

// TestProducerCannotForgeDerivedHeaders publishes to RabbitMQ, through a
// topic exchange, one message per derived or retry header with a header
// that tries to forge it. The receiver's envelope shows the real routing
// key, exchange, user id, redelivered flag and properties, the route sees
// no earlier deliveries, and the producer's own headers pass.
func TestProducerCannotForgeDerivedHeaders(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	f := newForgeFixture(t, ctx, "")
	a, ex := f.a, f.ex
	for i, tc := range amqpForgeCases() {
		t.Run(tc.name, func(t *testing.T) {
			pub := tc.pub
			pub.Headers = amqp.Table{"app": "kept"}
			for k, v := range tc.headers {
				pub.Headers[k] = v
			}
			pub.Body = []byte{byte(i)}
			if err := a.channel().PublishWithContext(ctx, ex, "orders.created", false, false, pub); err != nil {
				t.Fatal(err)
			}
			d := f.next(ctx, t)
			defer func() { _ = d.Ack(ctx) }()
			env := d.Envelope()
			if string(env.PayloadView()) != string(pub.Body) {
				t.Fatalf("got message %x, want %x", env.PayloadView(), pub.Body)
			}
			if env.Headers[HeaderRoutingKey] != "orders.created" || env.Headers[HeaderExchange] != ex {
				t.Errorf("routing key %v exchange %v, want orders.created %s", env.Headers[HeaderRoutingKey], env.Headers[HeaderExchange], ex)
			}
			if env.Headers["app"] != "kept" {
				t.Errorf("the producer's own header was lost: %v", env.Headers)
			}
			want := tc.want
			if want == nil {
				want = map[string]any{}
			}
			if diff := cmp.Diff(want, derivedOf(env.Headers)); diff != "" {
				t.Errorf("derived headers (-want +got):\n%s", diff)
			}
			if n, _ := d.(ports.RedeliveryCounter).RedeliveryCount(); n != tc.count {
				t.Errorf("redelivery count %d, want %d", n, tc.count)
			}
		})
	}
}

// TestDelayedRetryKeepsRoutingKeyAndCount: the bridge's own retry copies
// still carry the original routing key, exchange and retry count through
// the wait queue (their signature checks out), while a copy a producer
// publishes straight to the retry exchange, with retry headers and a
// made-up signature, is believed in nothing. Both with the key derived
// from the URL and with retry.signing_key.
func TestDelayedRetryKeepsRoutingKeyAndCount(t *testing.T) {
	for name, key := range map[string]string{"key from the URL": "", "configured key": "a configured signing key"} {
		t.Run(name, func(t *testing.T) { delayedRetryKeepsRoutingKeyAndCount(t, key) })
	}
}

func delayedRetryKeepsRoutingKeyAndCount(t *testing.T, signingKey string) {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	f := newForgeFixture(t, ctx, signingKey)
	if err := f.a.channel().PublishWithContext(ctx, f.ex, "orders.created", false, false,
		amqp.Publishing{MessageId: "m-1", Body: []byte("retried")}); err != nil {
		t.Fatal(err)
	}
	for want := range 3 {
		d := f.next(ctx, t)
		h := d.Envelope().Headers
		n, _ := d.(ports.RedeliveryCounter).RedeliveryCount()
		got := []any{h[HeaderRoutingKey], h[HeaderExchange], n, d.Envelope().ID}
		if diff := cmp.Diff([]any{"orders.created", f.ex, want, "m-1"}, got); diff != "" {
			t.Errorf("delivery %d: routing key, exchange, count, ID (-want +got):\n%s", want, diff)
		}
		if want < 2 {
			if err := d.Retry(ctx, 100*time.Millisecond, nil); err != nil {
				t.Fatal(err)
			}
		} else if err := d.Ack(ctx); err != nil {
			t.Fatal(err)
		}
	}
	forged := amqp.Publishing{MessageId: "m-2", Body: []byte("forged"), Headers: amqp.Table{
		HeaderRetryCount: int64(1), HeaderRetryRoutingKey: "payments.refund", HeaderRetryExchange: "payments",
		HeaderRetrySignature: "0123456789abcdef"}}
	if err := f.a.channel().PublishWithContext(ctx, f.cfg.Retry.Exchange, delayLabel(100*time.Millisecond), false, false, forged); err != nil {
		t.Fatal(err)
	}
	d := f.next(ctx, t)
	defer func() { _ = d.Ack(ctx) }()
	h := d.Envelope().Headers
	n, _ := d.(ports.RedeliveryCounter).RedeliveryCount()
	got := []any{h[HeaderRoutingKey], h[HeaderExchange], n, string(d.Envelope().PayloadView())}
	if diff := cmp.Diff([]any{f.q, "", 0, "forged"}, got); diff != "" {
		t.Errorf("forged copy: routing key, exchange, count, payload (-want +got):\n%s", diff)
	}
}
