package amqp091

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/gobridge-oss/gobridge/core/messaging"
)

// fuzzValue turns the i-th fuzzed value into one of the types an AMQP
// table carries.
func fuzzValue(i int, v string) any {
	switch i % 6 {
	case 0:
		return v
	case 1:
		return []byte(v)
	case 2:
		return int64(len(v)) - 3 // negative ones too
	case 3:
		return len(v)%2 == 0
	case 4:
		return amqp.Table{"k": v, "n": []any{v, int32(i)}}
	default:
		return int32(-len(v))
	}
}

// fuzzTable builds a table from newline-separated keys and values.
func fuzzTable(keys, values string) amqp.Table {
	vals := strings.Split(values, "\n")
	t := amqp.Table{}
	for i, k := range strings.Split(keys, "\n") {
		v := ""
		if i < len(vals) {
			v = vals[i]
		}
		t[k] = fuzzValue(i, v)
	}
	return t
}

// FuzzInboundTable maps a delivery with an arbitrary header table to an
// envelope. No table entry may set a header in the amqp091. namespace or
// a retry header, nor change the routing key, exchange or redelivery
// count: those follow the delivery alone. Every other entry arrives, and
// publishing the envelope again and receiving it gives the same headers.
func FuzzInboundTable(f *testing.F) {
	f.Add("amqp091.user-id\napp", "admin\nshop", "orders.created", "ex", false, "", "")
	f.Add("gobridge.retry-routing-key\ngobridge.retry-exchange\ngobridge.retry-count", "pay\npay-ex\n-5", "k", "", true, "guest", "text/plain")
	f.Add("amqp091.redelivered\nAMQP091.Routing-Key\nx-delivery-count", "x\ny\nzz", "k", "e", false, "", "")
	f.Add("gobridge.subject\nx-bridge.route-id\nnested", "s\nr\nv", "", "", true, "", "")
	f.Add("gobridge.retry-sig\nGobridge.Retry-Count\namqp091.priority", "00\n3\n9", "k", "e", false, "u", "")
	f.Fuzz(func(t *testing.T, keys, values, routingKey, exchange string, redelivered bool, userID, contentType string) {
		tb := fuzzTable(keys, values)
		d := amqp.Delivery{Headers: tb, RoutingKey: routingKey, Exchange: exchange, Redelivered: redelivered,
			UserId: userID, ContentType: contentType, MessageId: "m-1", Body: []byte("b")}
		in := fillEnvelope(&d, new(messaging.Envelope), time.Now, newRetrySigner("a signing key of some length", "", "q"))
		want := map[string]any{HeaderRoutingKey: routingKey, HeaderExchange: exchange}
		if redelivered {
			want[HeaderRedelivered] = true
		}
		if userID != "" {
			want[HeaderUserID] = userID
		}
		if contentType != "" {
			want[HeaderContentType] = contentType
		}
		for k, v := range tb {
			if k != messaging.SubjectCarrier && !isDerived(k) && !isRetryHeader(k) {
				want[k] = fromField(v)
			}
		}
		if diff := cmp.Diff(want, in.env.Headers); diff != "" {
			t.Fatalf("headers (-want +got):\n%s", diff)
		}
		if in.retries != 0 || in.brokerN < 0 || in.routingKey != routingKey || in.exchange != exchange {
			t.Fatalf("retries %d broker count %d routing %q %q", in.retries, in.brokerN, in.routingKey, in.exchange)
		}
		n, _ := (&delivery{raw: d, in: in}).RedeliveryCount()
		if n < 0 || (!redelivered && n != 0) {
			t.Fatalf("redelivery count %d (redelivered %v)", n, redelivered)
		}
		// Round trip through a sender and a receiver again.
		p := toPublishing(in.env, amqp.Persistent, "", false, time.Now(), nil)
		if err := p.Headers.Validate(); err != nil {
			t.Fatalf("published headers are not a valid table: %v", err)
		}
		if p.UserId != "" {
			t.Fatalf("user-id %q published", p.UserId)
		}
		d2 := deliveryOf(p, exchange, routingKey)
		d2.UserId, d2.Redelivered = userID, redelivered // what the broker would set
		back := toEnvelope(&d2, time.Now)
		for k := range want {
			if brokerHeader(k) || messaging.IsInternalOnly(k) {
				delete(want, k)
			}
		}
		if diff := cmp.Diff(want, back.env.Headers); diff != "" {
			t.Fatalf("round trip headers (-want +got):\n%s", diff)
		}
		if back.env.Subject != in.env.Subject || back.env.ID != in.env.ID {
			t.Fatalf("round trip subject %q ID %q, want %q %q", back.env.Subject, back.env.ID, in.env.Subject, in.env.ID)
		}
	})
}

// FuzzOutboundTable maps an envelope with arbitrary headers to a
// publishing, with the default mapping and with minimal_headers. The
// table is valid AMQP and holds no amqp091.*, retry, broker or
// internal-only header (with minimal, no x-bridge.* header at all); every
// other header is there, converted as toField converts it, and reads back
// the same.
func FuzzOutboundTable(f *testing.F) {
	f.Add("amqp091.user-id\namqp091.routing-key\napp", "admin\nk\nshop", "s")
	f.Add("gobridge.retry-count\ngobridge.retry-sig\nx-delivery-count\nx-death", "1\n00\n2\nd", "")
	f.Add("Amqp091.Exchange\nx-bridge.route-override\nn\nm", "e\nb\n123\nv", "orders")
	f.Add("x-bridge.tenant-id\nX-Bridge.Idempotency-Key\nx-bridge.other\napp", "t\nk\no\nv", "s")
	f.Fuzz(func(t *testing.T, keys, values, subject string) {
		env := messaging.NewEnvelope(subject, []byte("b"))
		vals := strings.Split(values, "\n")
		for i, k := range strings.Split(keys, "\n") {
			v := ""
			if i < len(vals) {
				v = vals[i]
			}
			var hv any
			switch i % 5 {
			case 0:
				hv = v
			case 1:
				hv = uint64(len(v)) << 60 // some do not fit an AMQP integer
			case 2:
				hv = map[string]any{"s": v, "l": []string{v}}
			case 3:
				hv = time.Duration(len(v))
			default:
				hv = len(v) - 2
			}
			env.SetHeader(k, hv)
		}
		for _, minimal := range []bool{false, true} {
			// With minimal, the x-bridge.* headers stay home as well.
			leftOut := func(k string) bool {
				return isDerived(k) || brokerHeader(k) || messaging.IsInternalOnly(k) || (minimal && messaging.IsReserved(k))
			}
			p := toPublishing(env, amqp.Persistent, "app", minimal, time.Now(), nil)
			if err := p.Headers.Validate(); err != nil {
				t.Fatalf("minimal %v: not a valid table: %v", minimal, err)
			}
			if p.UserId != "" {
				t.Fatalf("minimal %v: user-id %q published", minimal, p.UserId)
			}
			for k := range p.Headers {
				if leftOut(k) {
					t.Fatalf("minimal %v: header %q published", minimal, k)
				}
			}
			if got, ok := p.Headers[messaging.SubjectCarrier]; ok != (subject != "") || (ok && got != subject) {
				t.Fatalf("subject carrier %v (present %v), want %q (an empty one is left out)", got, ok, subject)
			}
			back := toEnvelope(&amqp.Delivery{Headers: p.Headers, MessageId: p.MessageId}, time.Now)
			for k, v := range env.Headers {
				if leftOut(k) || k == messaging.SubjectCarrier {
					continue
				}
				fv, err := toField(v)
				if err != nil {
					fv = fmt.Sprint(v)
				}
				if diff := cmp.Diff(fromField(fv), back.env.Headers[k]); diff != "" {
					t.Fatalf("minimal %v: header %q (-want +got):\n%s", minimal, k, diff)
				}
			}
		}
	})
}
