package mqtt

import (
	"testing"
	"time"

	"github.com/eclipse/paho.golang/paho"
	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
)

func TestEnvelopeRoundTrip(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	env := messaging.NewEnvelope("orders.created", []byte("payload"))
	env.ID = "m-1"
	env.ExpiresAt = now.Add(90*time.Second + time.Millisecond)
	env.SetHeader("app", "shop")
	env.SetHeader("count", 3)
	env.SetHeader(messaging.HeaderCorrelationID, "c-1")
	env.SetHeader(messaging.HeaderRouteID, "r") // internal: stays in the bridge
	env.SetHeader(HeaderTopic, "ignored/inbound/topic")
	env.SetHeader(HeaderContentType, "application/json")
	env.SetHeader(HeaderCorrelationData, []byte{0, 1})
	env.SetHeader(HeaderResponseTopic, "replies")
	pub, err := toPublish(env, "out/topic", 1, true, true, now)
	if err != nil {
		t.Fatal(err)
	}
	if pub.Topic != "out/topic" || pub.QoS != 1 || !pub.Retain || *pub.Properties.MessageExpiry != 91 {
		t.Errorf("publish topic %q qos %d retain %v expiry %d", pub.Topic, pub.QoS, pub.Retain, *pub.Properties.MessageExpiry)
	}
	back := toEnvelope(pub, "fresh-id", now)
	want := map[string]any{
		"app": "shop", "count": "3", messaging.HeaderCorrelationID: "c-1",
		HeaderTopic: "out/topic", HeaderRetain: "true", HeaderContentType: "application/json",
		HeaderCorrelationData: []byte{0, 1}, HeaderResponseTopic: "replies",
	}
	if diff := cmp.Diff(want, back.Headers); diff != "" {
		t.Errorf("headers (-want +got):\n%s", diff)
	}
	if back.ID != "m-1" || back.Subject != "orders.created" || string(back.PayloadView()) != "payload" ||
		!back.ExpiresAt.Equal(now.Add(91*time.Second)) {
		t.Errorf("got ID %q subject %q payload %q expiry %v", back.ID, back.Subject, back.PayloadView(), back.ExpiresAt)
	}
}

func TestEnvelopeWithoutCarriers(t *testing.T) {
	p := &paho.Publish{Topic: "sensors/t1", Payload: []byte("21.5")}
	env := toEnvelope(p, "fresh-id", time.Now())
	if env.Subject != "" || env.ID != "fresh-id" || env.HasExpiry() {
		t.Errorf("subject %q (want empty, never the topic), ID %q, expiry %v", env.Subject, env.ID, env.ExpiresAt)
	}
}

func TestPublishOfExpiredMessage(t *testing.T) {
	env := messaging.NewEnvelope("s", nil)
	env.ExpiresAt = time.Now().Add(-time.Second)
	if _, err := toPublish(env, "t", 1, false, true, time.Now()); fault.ClassOf(err) != fault.ClassExpired {
		t.Errorf("err %v, want class expired", err)
	}
	if _, err := toPublish(env, "t", 1, false, false, time.Now()); err != nil {
		t.Errorf("with no_expiry: %v", err)
	}
}

func TestReasonCodes(t *testing.T) {
	tests := []struct {
		code  byte
		class fault.Class
		fc    fault.Code
	}{
		{0x97, fault.ClassTransient, fault.CodeThrottled},
		{0x87, fault.ClassPermanent, fault.CodeNotAuthorized},
		{0x90, fault.ClassPermanent, fault.CodeInvalidTopic},
		{0x99, fault.ClassRejected, fault.CodeInvalidPayload},
		{0x95, fault.ClassRejected, fault.CodePayloadTooLarge},
		{0x80, fault.ClassTransient, fault.CodeUnavailable},
		{0x89, fault.ClassTransient, fault.CodeUnavailable},
		{0x91, fault.ClassTransient, fault.CodeBrokerBusy},
		{0x9B, fault.ClassPermanent, fault.CodeQoSNotSupported},
	}
	for _, tt := range tests {
		err := publishFault(t.Context(), &paho.PublishResponse{ReasonCode: tt.code}, nil)
		if fault.ClassOf(err) != tt.class || fault.CodeOf(err) != tt.fc {
			t.Errorf("0x%02X: %v (class %v), want %s %v", tt.code, err, fault.ClassOf(err), tt.fc, tt.class)
		}
	}
	if err := publishFault(t.Context(), &paho.PublishResponse{ReasonCode: 0x10}, nil); err != nil {
		t.Errorf("0x10 (no matching subscribers) = %v, want success", err)
	}
	if got := connackFault(0x86); fault.ClassOf(got) != fault.ClassPermanent {
		t.Errorf("bad credentials: %v", got)
	}
}

func TestReconnectBackoff(t *testing.T) {
	b := newReconnectBackoff(ReconnectConfig{Initial: time.Second, Max: 8 * time.Second, Multiplier: 2, Jitter: 0.5}, func() float64 { return 1 })
	var got []time.Duration
	for n := range 6 {
		got = append(got, b.delay(n))
	}
	want := []time.Duration{0, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 8 * time.Second}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("delays (-want +got):\n%s", diff)
	}
	// A connection that drops at once does not reset the ladder.
	now := time.Now()
	b.up(now)
	b.down(now.Add(time.Millisecond))
	b.up(now)
	b.down(now.Add(time.Millisecond))
	if d := b.delay(0); d != 2*time.Second {
		t.Errorf("after two quick drops the first retry waits %v, want 2s", d)
	}
	b.up(now)
	b.down(now.Add(time.Minute))
	if d := b.delay(0); d != 0 {
		t.Errorf("after a stable connection the first retry waits %v, want 0", d)
	}
	lo := newReconnectBackoff(ReconnectConfig{Initial: time.Second, Max: time.Second, Multiplier: 1, Jitter: 0.5}, func() float64 { return 0 })
	if d := lo.delay(3); d != 500*time.Millisecond {
		t.Errorf("full jitter draw 0 = %v, want half the delay", d)
	}
}
