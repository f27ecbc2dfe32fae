package servicebus

import (
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus"
	amqp "github.com/Azure/go-amqp"
	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
)

// FuzzWireRoundTrip: whatever the subject, payload and string or byte
// headers, an envelope comes back through AMQP with the same subject and
// payload, and with exactly the headers wantHeader expects, both with the
// default mapping and with minimal_headers.
func FuzzWireRoundTrip(f *testing.F) {
	f.Add("orders.created", []byte("{}"), "app", "v", "bin", []byte{0, 1})
	f.Add("", []byte{}, "servicebus.delivery-count", "9", "SERVICEBUS.x", []byte("y"))
	f.Add("s", []byte{0xff}, "x-bridge.correlation-id", "c", "DeadLetterReason", []byte{0xfe})
	f.Add("\xff", []byte(nil), "\xfe", "\xff", "k", []byte(nil))
	f.Add("s", []byte("p"), "X-Bridge.Route-Id", "r", "x-bridge.correlation-id", []byte("c"))
	f.Add("s", []byte("p"), "x-bridge.content-type", "text/plain", "x-bridge.tenant-id", []byte("t"))
	f.Add("s", []byte("p"), "x-bridge.correlation-id", strings.Repeat("c", 129), "X-Bridge.Content-Type", []byte("a/b"))
	f.Fuzz(func(t *testing.T, subject string, payload []byte, sk, sv, bk string, bv []byte) {
		env := messaging.NewEnvelope(subject, payload)
		env.Headers = map[string]any{sk: sv, bk: bv}
		if sk == bk {
			env.Headers = map[string]any{sk: sv}
		}
		for _, minimal := range []bool{false, true} {
			m, err := toMessage(env, outbound{now: time.Now(), minimal: minimal})
			if !utf8Valid(subject) {
				if fault.CodeOf(err) != fault.CodeInvalidPayload {
					t.Fatalf("a subject that is not UTF-8: %v, want INVALID_PAYLOAD", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("toMessage (minimal %v): %v", minimal, err)
			}
			got := fromReceived(overTheWire(t, m, 1, 0), time.Now())
			if got.Subject != subject {
				t.Errorf("minimal %v: subject %q, want %q", minimal, got.Subject, subject)
			}
			if string(got.PayloadView()) != string(payload) {
				t.Errorf("minimal %v: payload %q, want %q", minimal, got.PayloadView(), payload)
			}
			want := map[string]any{}
			for k, v := range env.Headers {
				if w, ok := wantHeader(env, k, v, minimal); ok {
					want[k] = w
				}
			}
			arrived := map[string]any{}
			for k, v := range got.Headers {
				switch {
				case !inNamespace(k):
					if b, isBytes := v.([]byte); isBytes && len(b) == 0 {
						v = []byte{}
					}
					arrived[k] = v
				case k != HeaderDeliveryCount && k != HeaderSequenceNumber && k != HeaderEnqueuedTime:
					t.Errorf("minimal %v: unexpected protocol header %q", minimal, k)
				}
			}
			if diff := cmp.Diff(want, arrived); diff != "" {
				t.Errorf("minimal %v: headers (-sent +received):\n%s", minimal, diff)
			}
		}
	})
}

// wantHeader says whether header k, with value v, of env comes back from
// a trip through toMessage and fromReceived, and as what: headers in
// servicebus.* are never sent (the receiver has its own), the correlation
// id and content type come back from their native properties when they
// fit them, the other headers that describe one hop stay behind, and with
// minimal the rest of x-bridge.* too.
func wantHeader(env *messaging.Envelope, k string, v any, minimal bool) (any, bool) {
	native := func() (string, bool) {
		s, ok := env.HeaderString(k)
		return s, ok && s != "" && utf8Valid(s)
	}
	switch {
	case inNamespace(k) || !utf8Valid(k):
		return nil, false
	case k == messaging.HeaderCorrelationID:
		if s, ok := native(); ok && len(s) <= maxIDLength && !(minimal && s == env.ID) {
			return s, true
		}
	case k == messaging.HeaderContentType:
		s, ok := native()
		return s, ok
	case messaging.IsInternalOnly(k):
		return nil, false
	}
	if minimal && messaging.IsReserved(k) {
		return nil, false
	}
	if k == propDeadLetterReason || k == propDeadLetterDescription {
		return stringValue(v), true
	}
	if s, isStr := v.(string); isStr && !utf8Valid(s) {
		return []byte(s), true
	}
	if b, isBytes := v.([]byte); isBytes && len(b) == 0 {
		return []byte{}, true
	}
	return v, true
}

// FuzzFromReceived: any AMQP message decodes into an envelope without a
// panic, and every servicebus.* header is one the receiver derives from
// the message itself, never an application property of that name.
func FuzzFromReceived(f *testing.F) {
	seed := func(m *amqp.Message) []byte {
		b, err := m.MarshalBinary()
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	subj := "s"
	f.Add(seed(&amqp.Message{Data: [][]byte{[]byte("x")}, Properties: &amqp.MessageProperties{Subject: &subj, MessageID: uint64(7)},
		ApplicationProperties: map[string]any{"servicebus.delivery-count": int64(0), "a": int32(1)}}))
	f.Add(seed(&amqp.Message{Value: "text", Header: &amqp.MessageHeader{DeliveryCount: 3}}))
	f.Add(seed(&amqp.Message{Data: [][]byte{{1}, {2}}, ApplicationProperties: map[string]any{"n": nil, "u": amqp.UUID{1}}}))
	sid := "real"
	f.Add(seed(&amqp.Message{Data: [][]byte{{1}}, Properties: &amqp.MessageProperties{GroupID: &sid},
		ApplicationProperties: map[string]any{"servicebus.session-id": "forged", "SERVICEBUS.reply-to": "r", "servicebus.to": "t"}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		in, ok := decodeAMQP(b)
		if !ok {
			return
		}
		rm := receivedFrom(in)
		env := fromReceived(rm, time.Now())
		for k, v := range env.Headers {
			if !inNamespace(k) {
				continue
			}
			want, ok := ownHeader(rm, k)
			if !ok {
				t.Errorf("a servicebus.* header %q that is not the receiver's own", k)
			} else if !cmp.Equal(v, want) {
				t.Errorf("%s = %#v, want the message's own %#v (application property: %#v)", k, v, want, rm.ApplicationProperties[k])
			}
		}
	})
}

// ownHeader is the value the receiver gives header k of rm, when k is one
// of the servicebus.* headers it sets.
func ownHeader(rm *azservicebus.ReceivedMessage, k string) (any, bool) {
	switch k {
	case HeaderDeliveryCount:
		return int64(rm.DeliveryCount), true
	case HeaderSequenceNumber:
		if rm.SequenceNumber == nil {
			return nil, false
		}
		return *rm.SequenceNumber, true
	case HeaderEnqueuedTime:
		if rm.EnqueuedTime == nil {
			return nil, false
		}
		return rm.EnqueuedTime.UTC().Format(time.RFC3339Nano), true
	}
	p, known := map[string]*string{
		HeaderSessionID: rm.SessionID, HeaderReplyTo: rm.ReplyTo, HeaderTo: rm.To, HeaderPartitionKey: rm.PartitionKey,
		HeaderDeadLetterSource: rm.DeadLetterSource, HeaderDeadLetterReason: rm.DeadLetterReason,
		HeaderDeadLetterDescription: rm.DeadLetterErrorDescription,
	}[k]
	if !known || p == nil || *p == "" {
		return nil, false
	}
	return *p, true
}

// decodeAMQP decodes b, reporting false for what go-amqp refuses or
// panics on: go-amqp v1.7.0 panics on annotation maps whose keys are
// lists, before this transport sees the message.
func decodeAMQP(b []byte) (m *amqp.Message, ok bool) {
	defer func() {
		if recover() != nil {
			m, ok = nil, false
		}
	}()
	m = new(amqp.Message)
	return m, m.UnmarshalBinary(b) == nil
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }
