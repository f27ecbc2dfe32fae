package amqp10

import (
	"testing"

	amqp "github.com/Azure/go-amqp"
)

func TestRedeliveryCountFromHeader(t *testing.T) {
	tests := []struct {
		name   string
		header *amqp.MessageHeader
		want   int
		wantOK bool
	}{
		{"no header", nil, 0, false},
		{"first delivery", &amqp.MessageHeader{FirstAcquirer: true}, 0, true},
		{"counted redelivery", &amqp.MessageHeader{DeliveryCount: 3}, 3, true},
		{"redelivered without a count (RabbitMQ 3.x)", &amqp.MessageHeader{}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, ok := redeliveryCount(tt.header)
			if n != tt.want || ok != tt.wantOK {
				t.Errorf("redeliveryCount = %d, %v; want %d, %v", n, ok, tt.want, tt.wantOK)
			}
		})
	}
}
