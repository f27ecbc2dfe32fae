package servicebus

import (
	"strings"
	"testing"
	"time"

	amqp "github.com/Azure/go-amqp"
	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
)

// FuzzWireRoundTrip: whatever the subject, payload and string or byte
// headers, an envelope comes back through AMQP with the same subject,
// payload and headers (strings that are not UTF-8 as bytes); headers in
// servicebus.* and names that are not UTF-8 are not sent.
func FuzzWireRoundTrip(f *testing.F) {
	f.Add("orders.created", []byte("{}"), "app", "v", "bin", []byte{0, 1})
	f.Add("", []byte{}, "servicebus.delivery-count", "9", "SERVICEBUS.x", []byte("y"))
	f.Add("s", []byte{0xff}, "x-bridge.correlation-id", "c", "DeadLetterReason", []byte{0xfe})
	f.Add("\xff", []byte(nil), "\xfe", "\xff", "k", []byte(nil))
	f.Fuzz(func(t *testing.T, subject string, payload []byte, sk, sv, bk string, bv []byte) {
		env := messaging.NewEnvelope(subject, payload)
		env.Headers = map[string]any{sk: sv, bk: bv}
		if sk == bk {
			env.Headers = map[string]any{sk: sv}
		}
		m, err := toMessage(env, outbound{now: time.Now()})
		if !utf8Valid(subject) {
			if fault.CodeOf(err) != fault.CodeInvalidPayload {
				t.Fatalf("a subject that is not UTF-8: %v, want INVALID_PAYLOAD", err)
			}
			return
		}
		if err != nil {
			t.Fatalf("toMessage: %v", err)
		}
		got := fromReceived(overTheWire(t, m, 1, 0), time.Now())
		if got.Subject != subject {
			t.Errorf("subject %q, want %q", got.Subject, subject)
		}
		if string(got.PayloadView()) != string(payload) {
			t.Errorf("payload %q, want %q", got.PayloadView(), payload)
		}
		for k, v := range env.Headers {
			h, ok := got.Headers[k]
			switch {
			case inNamespace(k):
				continue // protocol headers: the receiver's own values
			case !utf8Valid(k):
				if ok {
					t.Errorf("header with a non-UTF-8 name %q arrived", k)
				}
				continue
			case k == propDeadLetterReason || k == propDeadLetterDescription:
				if h != stringValue(v) {
					t.Errorf("%s = %#v, want the string %q", k, h, stringValue(v))
				}
				continue
			}
			want := v
			if s, isStr := v.(string); isStr && !utf8Valid(s) {
				want = []byte(s)
			}
			if b, isBytes := want.([]byte); isBytes && b == nil {
				want = []byte{}
			}
			if hb, isBytes := h.([]byte); isBytes && len(hb) == 0 {
				h = []byte{}
			}
			if diff := cmp.Diff(want, h); diff != "" {
				t.Errorf("header %q (-sent +received):\n%s", k, diff)
			}
		}
		for k := range got.Headers {
			if inNamespace(k) {
				switch k {
				case HeaderDeliveryCount, HeaderSequenceNumber, HeaderEnqueuedTime:
				default:
					t.Errorf("unexpected protocol header %q", k)
				}
			}
		}
	})
}

// FuzzFromReceived: any AMQP message decodes into an envelope without a
// panic, and no application property lands in servicebus.*.
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
	f.Fuzz(func(t *testing.T, b []byte) {
		in, ok := decodeAMQP(b)
		if !ok {
			return
		}
		rm := receivedFrom(in)
		env := fromReceived(rm, time.Now())
		for k, v := range rm.ApplicationProperties {
			if inNamespace(k) {
				if got, ok := env.Headers[k]; ok && cmp.Equal(got, v) && !strings.EqualFold(k, k) {
					t.Errorf("application property %q passed through", k)
				}
			}
		}
		for k := range env.Headers {
			if inNamespace(k) && k != strings.ToLower(k) {
				t.Errorf("a servicebus.* header %q that is not the receiver's own", k)
			}
		}
	})
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
