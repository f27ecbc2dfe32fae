package servicebus

import (
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus"
	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
)

func sp(s string) *string { return &s }

// An envelope survives the trip through AMQP: payload, ID, subject,
// creation time, expiry and every header outside servicebus.*.
func TestWireRoundTrip(t *testing.T) {
	now := time.UnixMilli(1700000000000).UTC()
	env := messaging.NewEnvelope("orders.created", []byte{0, 1, 2, 0xff})
	env.ID = "id-1"
	env.CreatedAt = now.Add(-time.Minute)
	env.ExpiresAt = now.Add(time.Hour)
	env.Headers = map[string]any{
		"app":                         "kept",
		"bin":                         []byte{0, 0xfe},
		"bad-utf8":                    "\xff\xfe",
		"n":                           int64(7),
		"ok":                          true,
		"nested":                      map[string]any{"a": "b"},
		messaging.HeaderCorrelationID: "corr-1",
		messaging.HeaderContentType:   "application/octet-stream",
		"x-bridge.ordering-key":       "session-a",
		"servicebus.sequence-number":  int64(-1),
		"ServiceBus.Delivery-Count":   int64(99),
		propDeadLetterReason:          42,
		"gobridge.redriven-from":      "older",
	}
	m, err := toMessage(env, outbound{sessionHeader: "x-bridge.ordering-key", notBefore: now.Add(time.Minute), now: now})
	if err != nil {
		t.Fatal(err)
	}
	if m.Properties.GroupID == nil || *m.Properties.GroupID != "session-a" {
		t.Errorf("session id %v, want session-a", m.Properties.GroupID)
	}
	if got := m.Properties.CorrelationID; got != "corr-1" {
		t.Errorf("native correlation id %v", got)
	}
	rm := overTheWire(t, m, 42, 0)
	if rm.ScheduledEnqueueTime == nil || !rm.ScheduledEnqueueTime.Equal(now.Add(time.Minute)) {
		t.Errorf("scheduled enqueue time %v, want %v", rm.ScheduledEnqueueTime, now.Add(time.Minute))
	}
	got := fromReceived(rm, now)
	if got.ID != "id-1" || got.Subject != "orders.created" {
		t.Errorf("id %q subject %q", got.ID, got.Subject)
	}
	if diff := cmp.Diff(env.PayloadView(), got.PayloadView()); diff != "" {
		t.Errorf("payload (-sent +received):\n%s", diff)
	}
	if !got.CreatedAt.Equal(env.CreatedAt) {
		t.Errorf("created %v, want %v", got.CreatedAt, env.CreatedAt)
	}
	if !got.ExpiresAt.Equal(rm.EnqueuedTime.Add(time.Hour)) {
		t.Errorf("expires %v, want enqueued time + 1h", got.ExpiresAt)
	}
	want := map[string]any{
		"app":                         "kept",
		"bin":                         []byte{0, 0xfe},
		"bad-utf8":                    []byte("\xff\xfe"),
		"n":                           int64(7),
		"ok":                          true,
		"nested":                      `{"a":"b"}`,
		messaging.HeaderCorrelationID: "corr-1",
		messaging.HeaderContentType:   "application/octet-stream",
		"x-bridge.ordering-key":       "session-a",
		propDeadLetterReason:          "42",
		"gobridge.redriven-from":      "older",
		HeaderDeliveryCount:           int64(1),
		HeaderSequenceNumber:          int64(42),
		HeaderEnqueuedTime:            "2023-11-14T22:13:20Z",
		HeaderSessionID:               "session-a",
	}
	if diff := cmp.Diff(want, got.Headers); diff != "" {
		t.Errorf("headers (-want +got):\n%s", diff)
	}
}

// TestProducerCannotForgeProtocolHeaders: application properties in the
// servicebus. namespace, in any case, never reach the envelope; the
// values there come from the message itself.
func TestProducerCannotForgeProtocolHeaders(t *testing.T) {
	seq := int64(5)
	tests := []struct {
		name string
		msg  *azservicebus.ReceivedMessage
		want map[string]any
	}{
		{
			name: "forged values replaced by the protocol's",
			msg: &azservicebus.ReceivedMessage{DeliveryCount: 3, SequenceNumber: &seq, SessionID: sp("real"),
				ApplicationProperties: map[string]any{
					"servicebus.delivery-count": int64(1), "SERVICEBUS.session-id": "forged", "servicebus.sequence-number": int64(0),
					"app": "kept",
				}},
			want: map[string]any{HeaderDeliveryCount: int64(3), HeaderSequenceNumber: int64(5), HeaderSessionID: "real", "app": "kept"},
		},
		{
			name: "forged values without protocol values are dropped",
			msg: &azservicebus.ReceivedMessage{DeliveryCount: 1, ApplicationProperties: map[string]any{
				"servicebus.dead-letter-reason": "forged", "ServiceBus.reply-to": "x", "app": "kept"}},
			want: map[string]any{HeaderDeliveryCount: int64(1), "app": "kept"},
		},
		{
			name: "native correlation id fills the bridge header only when unset",
			msg: &azservicebus.ReceivedMessage{DeliveryCount: 1, CorrelationID: sp("native"), ContentType: sp("text/plain"),
				ApplicationProperties: map[string]any{messaging.HeaderCorrelationID: "from-app"}},
			want: map[string]any{HeaderDeliveryCount: int64(1), messaging.HeaderCorrelationID: "from-app", messaging.HeaderContentType: "text/plain"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := fromReceived(tt.msg, time.Now())
			if diff := cmp.Diff(tt.want, env.Headers); diff != "" {
				t.Errorf("headers (-want +got):\n%s", diff)
			}
		})
	}
}

// servicebus.* headers are never sent as application properties, but the
// session header may name one (a Service Bus source's session id).
func TestSenderDropsProtocolHeaders(t *testing.T) {
	env := messaging.NewEnvelope("s", nil)
	env.Headers = map[string]any{HeaderSessionID: "from-source", HeaderSequenceNumber: int64(9), "app": "a"}
	m, err := toMessage(env, outbound{sessionHeader: HeaderSessionID, now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"app": "a"}, m.ApplicationProperties); diff != "" {
		t.Errorf("application properties (-want +got):\n%s", diff)
	}
	if m.Properties.GroupID == nil || *m.Properties.GroupID != "from-source" {
		t.Errorf("session id %v", m.Properties.GroupID)
	}
}

func TestWireLimits(t *testing.T) {
	long := strings.Repeat("x", 129)
	env := messaging.NewEnvelope("s", nil)
	env.ID = long
	env.Headers = map[string]any{"sid": long, messaging.HeaderCorrelationID: long}
	if _, err := toMessage(env, outbound{sessionHeader: "sid", now: time.Now()}); fault.CodeOf(err) != fault.CodeInvalidPayload {
		t.Errorf("a 129-character session id: %v, want INVALID_PAYLOAD", err)
	}
	m, err := toMessage(env, outbound{now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if id := m.Properties.MessageID.(string); len(id) > maxIDLength || !strings.HasPrefix(id, "sha256:") {
		t.Errorf("message id %q: want a hash of at most 128 characters", id)
	}
	if m.Properties.CorrelationID != nil {
		t.Errorf("a 129-character correlation id went native: %v", m.Properties.CorrelationID)
	}
	if m.ApplicationProperties[messaging.HeaderCorrelationID] != long {
		t.Error("the long correlation id is not kept as a property")
	}
}

// A message from a producer other than the bridge: value body, no id.
func TestFromReceivedForeignMessage(t *testing.T) {
	seq := int64(77)
	enq := time.UnixMilli(1700000000000).UTC()
	rm := &azservicebus.ReceivedMessage{SequenceNumber: &seq, EnqueuedTime: &enq, DeliveryCount: 2,
		RawAMQPMessage: &azservicebus.AMQPAnnotatedMessage{Body: azservicebus.AMQPAnnotatedMessageBody{Value: "text body"}}}
	env := fromReceived(rm, time.Now())
	if string(env.PayloadView()) != "text body" || env.ID != "sb-77" || !env.CreatedAt.Equal(enq) || env.Subject != "" {
		t.Errorf("got payload %q id %q created %v subject %q", env.PayloadView(), env.ID, env.CreatedAt, env.Subject)
	}
}

// A message with neither a message id nor a sequence number (never from
// Service Bus itself, but the envelope is built directly now) still gets
// an ID of its own, and a time.
func TestFromReceivedWithoutAnyIDMintsOne(t *testing.T) {
	now := time.UnixMilli(1700000000000).UTC()
	a := fromReceived(&azservicebus.ReceivedMessage{Body: []byte("x")}, now)
	b := fromReceived(&azservicebus.ReceivedMessage{Body: []byte("x")}, now)
	if a.ID == "" || a.ID == b.ID {
		t.Errorf("ids %q and %q, want two different non-empty ones", a.ID, b.ID)
	}
	if !a.CreatedAt.Equal(now) || a.Headers == nil {
		t.Errorf("created %v, headers %v; want %v and a header map", a.CreatedAt, a.Headers, now)
	}
}

// The header section goes only when it says something Service Bus reads:
// the time to live. Service Bus keeps every message whatever durable
// says, and a header sent for it alone costs the broker a section to
// parse per message; a header that is sent leaves the priority at the
// AMQP default (4) rather than stating 0.
func TestHeaderOnlyForTimeToLive(t *testing.T) {
	now := time.UnixMilli(1700000000000).UTC()
	tests := []struct {
		name    string
		expires time.Time
		want    *azservicebus.AMQPAnnotatedMessageHeader
	}{
		{name: "no expiry, no header"},
		{name: "expiry", expires: now.Add(time.Minute), want: &azservicebus.AMQPAnnotatedMessageHeader{Priority: 4, TTL: time.Minute}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := messaging.NewEnvelope("s", []byte("x"))
			env.ExpiresAt = tt.expires
			m, err := toMessage(env, outbound{now: now})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, m.Header); diff != "" {
				t.Errorf("header (-want +got):\n%s", diff)
			}
		})
	}
}
