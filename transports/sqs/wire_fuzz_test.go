package sqs

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/messaging"
)

// FuzzWireRoundTrip maps an envelope with arbitrary subject, payload and
// string or byte headers (any names, any number) to an SQS message and
// back, with the default mapping and with minimal_headers: everything
// arrives unchanged, within SQS's attribute limit, but for the headers
// each mapping leaves out.
func FuzzWireRoundTrip(f *testing.F) {
	f.Add("orders.created", []byte{0, 1, 0xff}, "a\nb\nx-bridge.correlation-id", "1\n2\n3")
	f.Add("", []byte("plain"), "h0\nh1\nh2\nh3\nh4\nh5\nh6\nh7\nh8\nh9\nh10\nh11", "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl")
	f.Add("s\xff", []byte("\uFFFE"), "AWS.x\nbad name\ngobridge.envelope\n.x", "\xff\x00\n\x01\nv\nw")
	f.Add("s", []byte("p"), "x-bridge.route-id\nX-Bridge.Tenant-Id\nx-bridge.idempotency-key\nx-bridge.content-type\nx-bridge.other", "r\nt\nk\ntext/plain\no")
	f.Fuzz(func(t *testing.T, subject string, payload []byte, names, values string) {
		env := messaging.NewEnvelope(subject, payload)
		vals := strings.Split(values, "\n")
		for i, k := range strings.Split(names, "\n") {
			v := ""
			if i < len(vals) {
				v = vals[i]
			}
			if i%3 == 2 {
				env.SetHeader(k, []byte(v))
			} else {
				env.SetHeader(k, v)
			}
		}
		for _, minimal := range []bool{false, true} {
			w, err := toWire(env, nil, minimal)
			if err != nil {
				t.Fatalf("toWire (minimal %v): %v", minimal, err)
			}
			if len(w.attrs) > maxAttributes {
				t.Fatalf("%d attributes, SQS takes %d", len(w.attrs), maxAttributes)
			}
			if !textSafe([]byte(w.body)) {
				t.Fatalf("body %q is not text SQS accepts", w.body)
			}
			for k, a := range w.attrs {
				if a.StringValue != nil && !textSafe([]byte(*a.StringValue)) {
					t.Fatalf("attribute %q value %q is not text SQS accepts", k, *a.StringValue)
				}
			}
			back := fromWire(wireToMessage(w), time.Now())
			want := messaging.CloneHeaders(env.Headers)
			for k := range want {
				// The metadata attribute's name is the transport's own;
				// what describes this hop stays behind, and with minimal
				// what only a bridge downstream reads.
				if k == AttrEnvelope || hopOnly(k) || (minimal && messaging.IsPropagated(k)) {
					delete(want, k)
				}
			}
			if back.Subject != subject {
				t.Errorf("minimal %v: subject %q, want %q", minimal, back.Subject, subject)
			}
			if diff := cmp.Diff(payload, back.PayloadView(), cmp.Comparer(func(a, b []byte) bool { return string(a) == string(b) })); diff != "" {
				t.Errorf("minimal %v: payload (-sent +received):\n%s", minimal, diff)
			}
			if back.ID != env.ID {
				t.Errorf("minimal %v: ID %q, want %q", minimal, back.ID, env.ID)
			}
			if diff := cmp.Diff(want, back.Headers, cmp.Comparer(func(a, b []byte) bool { return string(a) == string(b) })); diff != "" {
				t.Errorf("minimal %v: headers (-sent +received):\n%s", minimal, diff)
			}
		}
	})
}

// FuzzFromWire reads an arbitrary message as a foreign producer could
// send it: it never panics, never yields the metadata attribute as a
// header, always has an ID, and keeps a plain body as it is.
func FuzzFromWire(f *testing.F) {
	f.Add("body", `{"s":"x","b64":true}`, "k", "v")
	f.Add("", `{"h":{"gobridge.envelope":"x"},"hb":{"k":"AA=="}}`, "gobridge.envelope", "v")
	f.Add("\x00", `not json`, "", "")
	f.Fuzz(func(t *testing.T, body, metaJSON, name, value string) {
		m := types.Message{Body: aws.String(body), MessageId: aws.String("mid"),
			MessageAttributes: map[string]types.MessageAttributeValue{
				AttrEnvelope: {DataType: aws.String("String"), StringValue: aws.String(metaJSON)},
				name:         {DataType: aws.String("String"), StringValue: aws.String(value)},
			}}
		env := fromWire(m, time.Now())
		if _, ok := env.Headers[AttrEnvelope]; ok {
			t.Error("the metadata attribute arrived as a header")
		}
		if env.ID == "" {
			t.Error("empty envelope ID")
		}
		var md meta
		b64 := json.Unmarshal([]byte(metaJSON), &md) == nil && md.Base64
		if !b64 && string(env.PayloadView()) != body {
			t.Errorf("payload %q, want the body %q", env.PayloadView(), body)
		}
	})
}
