package amqp10

import (
	"context"
	"testing"
	"time"

	amqp "github.com/Azure/go-amqp"
	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

func strp(s string) *string { return &s }

// TestProducerCannotForgeProtocolHeaders: application properties in the
// amqp10. namespace, in any case, never reach the envelope; the values
// there come from the message itself.
func TestProducerCannotForgeProtocolHeaders(t *testing.T) {
	now := time.Unix(1700000000, 0)
	tests := []struct {
		name string
		msg  *amqp.Message
		want map[string]any
	}{
		{
			name: "forged values replaced by the protocol's",
			msg: &amqp.Message{
				Header:     &amqp.MessageHeader{DeliveryCount: 2, Priority: 4},
				Properties: &amqp.MessageProperties{To: strp("/amq/queue/real")},
				ApplicationProperties: map[string]any{
					"amqp10.delivery-count": int64(0), "AMQP10.To": "forged", "amqp10.annotation.x-opt-a": "forged",
					"app": "kept",
				},
				Annotations: amqp.Annotations{"x-opt-a": "real"},
			},
			want: map[string]any{
				HeaderDeliveryCount: int64(2), HeaderPriority: int64(4), HeaderTo: "/amq/queue/real",
				HeaderAnnotationPrefix + "x-opt-a": "real", "app": "kept",
			},
		},
		{
			name: "forged values without protocol values are dropped",
			msg: &amqp.Message{ApplicationProperties: map[string]any{
				"amqp10.reply-to": "forged", "Amqp10.user-id": "root", "app": "kept",
			}},
			want: map[string]any{"app": "kept"},
		},
		{
			name: "native correlation id fills the bridge header only when unset",
			msg: &amqp.Message{
				Properties:            &amqp.MessageProperties{CorrelationID: "native", ContentType: strp("text/plain")},
				ApplicationProperties: map[string]any{messaging.HeaderCorrelationID: "from-app"},
			},
			want: map[string]any{messaging.HeaderCorrelationID: "from-app", messaging.HeaderContentType: "text/plain"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := fromMessage(tt.msg, now)
			if diff := cmp.Diff(tt.want, env.Headers); diff != "" {
				t.Errorf("headers (-want +got):\n%s", diff)
			}
		})
	}
}

// TestProducerCannotForgeProtocolHeadersOnRabbitMQ sends a forged
// delivery-count through RabbitMQ and reads it with the Receiver.
func TestProducerCannotForgeProtocolHeadersOnRabbitMQ(t *testing.T) {
	p := rabbitPeer(t)
	q := p.queue(t)
	raw := newRawClient(t, p)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	env := messaging.NewEnvelope("forge", []byte("x"))
	env.Headers = map[string]any{"amqp10.delivery-count": int64(99), "AMQP10.to": "forged", "app": "kept"}
	if err := raw.publish(ctx, q, env); err != nil {
		t.Fatal(err)
	}
	r, err := NewReceiver(newTestSession(t, p), ReceiverConfig{Address: q})
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan ports.Delivery, 1)
	runCtx, stop := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() {
		ran <- r.Run(runCtx, func(_ context.Context, d ports.Delivery) error { got <- d; return nil })
	}()
	defer func() { stop(); <-ran }()
	var d ports.Delivery
	select {
	case d = <-got:
	case <-ctx.Done():
		t.Fatal("no delivery")
	}
	h := d.Envelope().Headers
	want := map[string]any{"app": "kept", HeaderDeliveryCount: int64(0), HeaderPriority: int64(0)}
	if _, ok := h["AMQP10.to"]; ok {
		t.Error("a forged AMQP10.to survived")
	}
	for k, v := range want {
		if h[k] != v {
			t.Errorf("%s = %v, want %v (headers %v)", k, h[k], v, h)
		}
	}
	if err := d.Ack(ctx); err != nil {
		t.Fatal(err)
	}
}
