package amqpio

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	amqp "github.com/rabbitmq/amqp091-go"
)

func TestWireOf(t *testing.T) {
	d := amqp.Delivery{
		Headers:      amqp.Table{"x-bridge.correlation-id": "0123", "gobridge.subject": ""},
		MessageId:    "0123",
		Timestamp:    time.Unix(1, 0),
		DeliveryMode: amqp.Persistent,
	}
	want := Wire{Headers: []string{"gobridge.subject", "x-bridge.correlation-id"},
		HeaderBytes: (1 + 16 + 1 + 0 + 4) + (1 + 23 + 1 + 4 + 4), MessageID: true, Timestamp: true, DeliveryMode: 2}
	if diff := cmp.Diff(want, wireOf(&d)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := (Wire{DeliveryMode: 2}).String(); got != `headers=[] (~0 B) message_id=false timestamp=false app_id="" delivery_mode=2 content_type="" correlation_id=false` {
		t.Errorf("String() = %s", got)
	}
}
