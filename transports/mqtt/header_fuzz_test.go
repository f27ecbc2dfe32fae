package mqtt

import (
	"strings"
	"testing"
	"time"

	"github.com/eclipse/paho.golang/paho"
	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/messaging"
)

// fuzzUserProps builds user properties from newline-separated keys and
// values.
func fuzzUserProps(keys, values string) paho.UserProperties {
	vals := strings.Split(values, "\n")
	var out paho.UserProperties
	for i, k := range strings.Split(keys, "\n") {
		v := ""
		if i < len(vals) {
			v = vals[i]
		}
		out = append(out, paho.UserProperty{Key: k, Value: v})
	}
	return out
}

// FuzzInboundHeaders maps a PUBLISH with arbitrary user properties to an
// envelope. No user property may set a header in the mqtt. namespace:
// those must equal what the packet carries. Every other user property
// arrives (the last of duplicates wins), and sending the envelope on and
// receiving it again gives back the same headers.
func FuzzInboundHeaders(f *testing.F) {
	f.Add("a/b", false, "mqtt.topic\napp", "forged/topic\nshop", "", "")
	f.Add("a/b", true, "mqtt.retain\nMQTT.Retain", "false\nfalse", "text/plain", "r")
	f.Add("t", false, "mqtt.content-type\nmqtt.correlation-data\nmqtt.response-topic", "x\ny\nz", "", "")
	f.Add("t", false, "gobridge.subject\ngobridge.id\nx-bridge.route-id", "s\nid-1\nr", "", "")
	f.Add("t", false, "k\nk\nMqTt.qos", "1\n2\n2", "", "")
	f.Fuzz(func(t *testing.T, topic string, retain bool, keys, values, contentType, responseTopic string) {
		user := fuzzUserProps(keys, values)
		p := &paho.Publish{Topic: topic, Retain: retain, Payload: []byte("p"),
			Properties: &paho.PublishProperties{User: user, ContentType: contentType, ResponseTopic: responseTopic}}
		now := time.Now()
		env := toEnvelope(p, "fresh", now)
		want := map[string]any{HeaderTopic: topic}
		if retain {
			want[HeaderRetain] = "true"
		}
		if contentType != "" {
			want[HeaderContentType] = contentType
		}
		if responseTopic != "" {
			want[HeaderResponseTopic] = responseTopic
		}
		for _, u := range user {
			if u.Key != messaging.SubjectCarrier && u.Key != PropertyMessageID && !isDerived(u.Key) {
				want[u.Key] = u.Value
			}
		}
		if diff := cmp.Diff(want, env.Headers); diff != "" {
			t.Fatalf("headers (-want +got):\n%s", diff)
		}
		// Round trip: what a sender makes of the envelope reads back the
		// same, except the headers that describe this hop.
		out, err := toPublish(env, topic, 1, retain, false, now)
		if err != nil {
			t.Fatal(err)
		}
		back := toEnvelope(out, "other", now)
		for k := range want {
			if messaging.IsInternalOnly(k) {
				delete(want, k)
			}
		}
		if diff := cmp.Diff(want, back.Headers); diff != "" {
			t.Fatalf("round trip headers (-want +got):\n%s", diff)
		}
		if back.Subject != env.Subject || (env.ID != "" && back.ID != env.ID) {
			t.Fatalf("round trip subject %q ID %q, want %q %q", back.Subject, back.ID, env.Subject, env.ID)
		}
	})
}

// FuzzOutboundHeaders maps an envelope with arbitrary headers to a
// PUBLISH. No user property lies in the mqtt. namespace or is an
// internal-only bridge header; the subject and ID carriers appear once,
// from the envelope's fields; every other header becomes one user
// property with its text.
func FuzzOutboundHeaders(f *testing.F) {
	f.Add("mqtt.topic\nmqtt.retain\napp", "x\ntrue\nshop", "orders", "m-1")
	f.Add("gobridge.subject\ngobridge.id\nx-bridge.route-override", "forged\nforged\nb", "", "")
	f.Add("MQTT.Response-Topic\nmqtt.content-type", "r\napplication/json", "s", "")
	f.Fuzz(func(t *testing.T, keys, values, subject, id string) {
		env := messaging.NewEnvelope(subject, nil)
		env.ID = id
		for _, u := range fuzzUserProps(keys, values) {
			env.SetHeader(u.Key, u.Value)
		}
		p, err := toPublish(env, "out", 0, false, false, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]int{}
		for _, u := range p.Properties.User {
			seen[u.Key]++
			if isDerived(u.Key) || messaging.IsInternalOnly(u.Key) {
				t.Fatalf("user property %q written", u.Key)
			}
		}
		for k, n := range seen {
			if n > 1 {
				t.Fatalf("user property %q written %d times", k, n)
			}
		}
		if got := p.Properties.User.Get(messaging.SubjectCarrier); got != subject {
			t.Fatalf("subject carrier %q, want %q", got, subject)
		}
		if got := p.Properties.User.Get(PropertyMessageID); got != id {
			t.Fatalf("ID carrier %q, want %q", got, id)
		}
		for k, v := range env.Headers {
			if isDerived(k) || messaging.IsInternalOnly(k) || k == messaging.SubjectCarrier || k == PropertyMessageID {
				continue
			}
			if got := p.Properties.User.Get(k); got != v {
				t.Fatalf("user property %q = %q, want %q", k, got, v)
			}
		}
	})
}
