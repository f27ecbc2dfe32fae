package amqp091

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/gobridge-oss/gobridge/core/messaging"
)

// Envelope headers that carry AMQP delivery facts and message properties.
// A receiver sets them from what arrived; a sender turns the property ones
// back into properties (and drops the delivery facts, which describe the
// source).
const (
	// HeaderRoutingKey is the routing key the message arrived with (for a
	// delayed retry, the one it had before its first retry).
	HeaderRoutingKey = "amqp091.routing-key"
	// HeaderExchange is the exchange the message was published to.
	HeaderExchange = "amqp091.exchange"
	// HeaderRedelivered is true when the broker redelivered the message.
	HeaderRedelivered = "amqp091.redelivered"
	// HeaderUserID is the validated user-id property. It is not published
	// again: the broker refuses a user-id other than the connection's.
	HeaderUserID = "amqp091.user-id"

	HeaderCorrelationID   = "amqp091.correlation-id"   // correlation-id property
	HeaderContentType     = "amqp091.content-type"     // content-type property
	HeaderContentEncoding = "amqp091.content-encoding" // content-encoding property
	HeaderReplyTo         = "amqp091.reply-to"         // reply-to property
	HeaderType            = "amqp091.type"             // type property
	HeaderAppID           = "amqp091.app-id"           // app-id property
	HeaderPriority        = "amqp091.priority"         // priority property (0-9)

	// HeaderRetryCount is stamped on a message a receiver hands to its
	// retry exchange: how many times it was retried so far.
	HeaderRetryCount = "gobridge.retry-count"
	// HeaderRetryRoutingKey and HeaderRetryExchange keep the original
	// routing key and exchange of a retried message, which dead-lettering
	// back to the queue replaces.
	HeaderRetryRoutingKey = "gobridge.retry-routing-key"
	HeaderRetryExchange   = "gobridge.retry-exchange"
)

// DerivedPrefix starts every header name a receiver derives from the
// delivery itself (routing key, exchange, redelivered flag, user id and
// the other properties). The namespace belongs to the bridge: a header
// in it (in any letter case) that a producer put in the message's table is
// dropped on receipt, and a sender never writes one into a table.
const DerivedPrefix = "amqp091."

// isDerived reports whether k lies in the amqp091. namespace, compared
// case-insensitively.
func isDerived(k string) bool {
	return len(k) >= len(DerivedPrefix) && strings.EqualFold(k[:len(DerivedPrefix)], DerivedPrefix)
}

// isRetryHeader reports whether k names one of the headers of the
// delayed-retry path, in any letter case.
func isRetryHeader(k string) bool {
	for _, r := range [...]string{HeaderRetryCount, HeaderRetryRoutingKey, HeaderRetryExchange, HeaderRetrySignature} {
		if strings.EqualFold(k, r) {
			return true
		}
	}
	return false
}

// brokerHeaders are set by RabbitMQ itself about the source queue, or by
// the retry path; they are not forwarded, or a target queue would see
// another queue's history.
func brokerHeader(k string) bool {
	return k == "x-delivery-count" || k == "x-death" || strings.HasPrefix(k, "x-first-death-") ||
		strings.HasPrefix(k, "x-last-death-") || isRetryHeader(k)
}

// inbound is what a receiver learns from one delivery.
type inbound struct {
	env        *messaging.Envelope
	retries    int    // a verified HeaderRetryCount (0)
	routingKey string // the routing key the message was first published with
	exchange   string // and its exchange
	brokerN    int    // x-delivery-count
	hasBrokerN bool   // a quorum queue counted
}

// toEnvelope maps a delivery to an envelope: the subject from the
// gobridge.subject header, the ID from message-id (a fresh one when
// absent), the creation time from timestamp, the expiry from expiration,
// the other properties and the routing key into amqp091.* headers, and
// every other header as it is (nested tables as maps). It believes no
// retry headers; see fillEnvelope.
func toEnvelope(d *amqp.Delivery, now func() time.Time) inbound {
	return fillEnvelope(d, new(messaging.Envelope), now, nil)
}

// fillEnvelope is toEnvelope into env, which a delivery embeds to save an
// allocation per message. The retry headers count only when rs verifies
// their signature (never with rs nil); headers in the amqp091. namespace
// are never taken from the table; x-delivery-count counts only on a
// redelivery and when not negative.
func fillEnvelope(d *amqp.Delivery, env *messaging.Envelope, now func() time.Time, rs *retrySigner) inbound {
	var in inbound
	subject := ""
	switch v := d.Headers[messaging.SubjectCarrier].(type) {
	case string:
		subject = v
	case []byte:
		subject = string(v)
	}
	// Built by hand rather than with NewEnvelope: the ID and creation time
	// usually come with the message, and generating them is wasted work.
	h := make(map[string]any, len(d.Headers)+4)
	*env = messaging.Envelope{ID: d.MessageId, Subject: subject, Headers: h}
	env.SetPayload(d.Body) // the library allocated it for this delivery alone
	in.env = env
	if env.ID == "" {
		env.ID = messaging.NewID()
	}
	var st retryStamp
	var sig string
	for k, v := range d.Headers {
		switch k {
		case messaging.SubjectCarrier:
		case HeaderRetryCount:
			st.count, _ = intValue(v)
		case HeaderRetryRoutingKey:
			st.routingKey = stringValue(v)
		case HeaderRetryExchange:
			st.exchange = stringValue(v)
		case HeaderRetrySignature:
			sig = stringValue(v)
		case "x-delivery-count":
			// A quorum queue sets it on every delivery; on a classic queue
			// it is whatever the producer wrote.
			if n, ok := intValue(v); ok && n >= 0 && d.Redelivered {
				in.brokerN, in.hasBrokerN = n, true
			}
			h[k] = fromField(v)
		default:
			if isDerived(k) || isRetryHeader(k) {
				continue // the delivery decides these, never the producer
			}
			h[k] = fromField(v)
		}
	}
	in.routingKey, in.exchange = d.RoutingKey, d.Exchange
	if rs.verify(st, d.MessageId, d.Body, sig) {
		in.retries, in.routingKey, in.exchange = st.count, st.routingKey, st.exchange
	}
	// The derived headers are written last.
	h[HeaderRoutingKey] = in.routingKey
	h[HeaderExchange] = in.exchange
	if d.Redelivered {
		h[HeaderRedelivered] = true
	}
	setIf(h, HeaderCorrelationID, d.CorrelationId)
	setIf(h, HeaderContentType, d.ContentType)
	setIf(h, HeaderContentEncoding, d.ContentEncoding)
	setIf(h, HeaderReplyTo, d.ReplyTo)
	setIf(h, HeaderType, d.Type)
	setIf(h, HeaderAppID, d.AppId)
	setIf(h, HeaderUserID, d.UserId)
	if d.Priority > 0 {
		h[HeaderPriority] = int64(d.Priority)
	}
	if !d.Timestamp.IsZero() {
		env.CreatedAt = d.Timestamp.UTC()
	} else {
		env.CreatedAt = now().UTC()
	}
	if d.Expiration != "" {
		if ms, err := strconv.ParseInt(d.Expiration, 10, 64); err == nil && ms >= 0 {
			// The broker drops expired messages, so what it delivers has at
			// most the full TTL left.
			env.ExpiresAt = now().Add(time.Duration(ms) * time.Millisecond)
		}
	}
	return in
}

func setIf(h map[string]any, k, v string) {
	if v != "" {
		h[k] = v
	}
}

// toPublishing maps an envelope to a publishing: the subject into the
// gobridge.subject header (left out when empty: a receiver reads a missing
// header as the empty subject), the ID into message-id, CreatedAt into
// timestamp, the remaining time to live into expiration and the amqp091.*
// property headers back into properties. Internal-only x-bridge.* headers,
// which every bridge strips at ingress, are left out; with minimal, every
// other x-bridge.* header is too (a downstream bridge keeps them only from
// a trusted upstream). mode is 2 for persistent.
//
// h receives the headers; it must be empty. Nil allocates a table.
func toPublishing(env *messaging.Envelope, mode uint8, appID string, minimal bool, now time.Time, h amqp.Table) amqp.Publishing {
	if h == nil {
		h = make(amqp.Table, len(env.Headers)+1)
	}
	p := amqp.Publishing{
		Headers:      h,
		Body:         env.PayloadView(),
		MessageId:    env.ID,
		Timestamp:    env.CreatedAt,
		DeliveryMode: mode,
		AppId:        appID,
	}
	for k, v := range env.Headers {
		switch k {
		case HeaderRoutingKey, HeaderExchange, HeaderRedelivered, HeaderUserID:
		case HeaderCorrelationID:
			p.CorrelationId = stringValue(v)
		case HeaderContentType:
			p.ContentType = stringValue(v)
		case HeaderContentEncoding:
			p.ContentEncoding = stringValue(v)
		case HeaderReplyTo:
			p.ReplyTo = stringValue(v)
		case HeaderType:
			p.Type = stringValue(v)
		case HeaderAppID:
			p.AppId = stringValue(v)
		case HeaderPriority:
			if n, ok := intValue(v); ok && n >= 0 && n <= 255 {
				p.Priority = uint8(n)
			}
		default:
			if brokerHeader(k) || messaging.IsInternalOnly(k) || isDerived(k) || k == messaging.SubjectCarrier ||
				(minimal && messaging.IsReserved(k)) {
				continue
			}
			fv, err := toField(v)
			if err != nil {
				fv = fmt.Sprint(v) // keep what can be kept rather than fail the message
			}
			h[k] = fv
		}
	}
	if env.Subject != "" {
		h[messaging.SubjectCarrier] = env.Subject
	}
	if env.HasExpiry() {
		p.Expiration = strconv.FormatInt(max(env.ExpiresAt.Sub(now).Milliseconds(), 1), 10)
	}
	return p
}

func stringValue(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	case nil:
		return ""
	default:
		return fmt.Sprint(x)
	}
}

func intValue(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case int8:
		return int(x), true
	case int16:
		return int(x), true
	case int32:
		return int(x), true
	case int64:
		return int(x), true
	case uint8:
		return int(x), true
	case uint16:
		return int(x), true
	case uint32:
		return int(x), true
	case float64:
		return int(x), true
	case string:
		n, err := strconv.Atoi(x)
		return n, err == nil
	default:
		return 0, false
	}
}
