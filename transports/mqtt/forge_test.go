package mqtt

import (
	"testing"
	"time"

	"github.com/eclipse/paho.golang/paho"
	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/messaging"
)

// forgeCase is one attempt by a producer to set a header the receiver
// derives from the MQTT packet.
type forgeCase struct {
	name   string
	user   paho.UserProperties    // what the producer adds
	props  paho.PublishProperties // the real properties it sends
	retain bool
	want   map[string]any // the derived headers the envelope must show (besides mqtt.topic)
}

// forgeCases lists every header the MQTT receiver derives, each forged by
// a user property, alone and next to the real property.
func forgeCases() []forgeCase {
	return []forgeCase{
		{name: "topic", user: paho.UserProperties{{Key: HeaderTopic, Value: "allowed/elsewhere"}}},
		{name: "topic in upper case", user: paho.UserProperties{{Key: "MQTT.Topic", Value: "allowed/elsewhere"}}},
		{name: "retain", user: paho.UserProperties{{Key: HeaderRetain, Value: "true"}}},
		{name: "retain false on a retained message", retain: true,
			user: paho.UserProperties{{Key: HeaderRetain, Value: "false"}},
			want: map[string]any{HeaderRetain: "true"}},
		{name: "content type", user: paho.UserProperties{{Key: HeaderContentType, Value: "application/forged"}}},
		{name: "content type next to the real one", props: paho.PublishProperties{ContentType: "text/plain"},
			user: paho.UserProperties{{Key: HeaderContentType, Value: "application/forged"}},
			want: map[string]any{HeaderContentType: "text/plain"}},
		{name: "correlation data", user: paho.UserProperties{{Key: HeaderCorrelationData, Value: "forged"}}},
		{name: "response topic", user: paho.UserProperties{{Key: HeaderResponseTopic, Value: "steal/replies"}}},
		{name: "response topic next to the real one", props: paho.PublishProperties{ResponseTopic: "replies"},
			user: paho.UserProperties{{Key: HeaderResponseTopic, Value: "steal/replies"}},
			want: map[string]any{HeaderResponseTopic: "replies"}},
		{name: "unknown name in the namespace", user: paho.UserProperties{{Key: "mqtt.qos", Value: "2"}}},
	}
}

// derivedHeaders returns the mqtt.* headers of h except the topic.
func derivedHeaders(h map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range h {
		if isDerived(k) && k != HeaderTopic {
			out[k] = v
		}
	}
	return out
}

// TestProducerCannotForgeDerivedHeaders publishes, through Mosquitto, one
// message per derived header with a user property that tries to forge it:
// the envelope shows the real topic, retain flag and properties, and no
// other header in the mqtt. namespace; the producer's other user
// properties pass.
func TestProducerCannotForgeDerivedHeaders(t *testing.T) {
	requireBroker(t)
	ctx := testContext(t)
	base := "gobridge-it/forge/" + unique()
	s := newSession(t, SessionConfig{})
	r, err := NewReceiver(s, ReceiverConfig{Subscriptions: []SubscriptionConfig{{Topic: base + "/#", RetainAsPublished: true}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, "the subscription", func() bool { return s.Health(ctx).Subscribed })
	got := collect(t, r)
	pub := newObserver(t, base+"-unused") // used only to publish
	for i, tc := range forgeCases() {
		t.Run(tc.name, func(t *testing.T) {
			topic := base + "/" + unique()
			props := tc.props
			props.User = append(append(paho.UserProperties{}, tc.user...), paho.UserProperty{Key: "app", Value: "kept"})
			if _, err := pub.cm.Publish(ctx, &paho.Publish{QoS: 1, Topic: topic, Retain: tc.retain,
				Properties: &props, Payload: []byte{byte(i)}}); err != nil {
				t.Fatal(err)
			}
			if tc.retain {
				t.Cleanup(func() {
					_, _ = pub.cm.Publish(ctx, &paho.Publish{QoS: 1, Topic: topic, Retain: true})
				})
			}
			env := next(ctx, t, got)
			for string(env.PayloadView()) != string([]byte{byte(i)}) {
				env = next(ctx, t, got) // skip the clearing of an earlier retained message
			}
			if env.Headers[HeaderTopic] != topic {
				t.Errorf("%s = %v, want the real topic %q", HeaderTopic, env.Headers[HeaderTopic], topic)
			}
			if env.Headers["app"] != "kept" {
				t.Errorf("the producer's own property was lost: %v", env.Headers)
			}
			want := tc.want
			if want == nil {
				want = map[string]any{}
			}
			if diff := cmp.Diff(want, derivedHeaders(env.Headers)); diff != "" {
				t.Errorf("derived headers (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSenderWritesNoDerivedUserProperty checks the other direction: an
// envelope's mqtt.* headers never become user properties, so a hop to
// another bridge cannot carry them either.
func TestSenderWritesNoDerivedUserProperty(t *testing.T) {
	env := messaging.NewEnvelope("s", nil)
	for _, tc := range forgeCases() {
		for _, u := range tc.user {
			env.SetHeader(u.Key, u.Value)
		}
	}
	env.SetHeader("app", "kept")
	pub, err := toPublish(env, "out", 1, false, false, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range pub.Properties.User {
		if isDerived(u.Key) {
			t.Errorf("user property %q = %q written", u.Key, u.Value)
		}
	}
	if back := toEnvelope(pub, "id", time.Now()); back.Headers["app"] != "kept" {
		t.Errorf("the application header did not survive: %v", back.Headers)
	}
}
