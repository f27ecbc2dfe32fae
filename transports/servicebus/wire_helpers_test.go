package servicebus

import (
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus"
	amqp "github.com/Azure/go-amqp"
)

// overTheWire encodes m as AMQP the way the SDK sends it, decodes it
// again and builds the ReceivedMessage the SDK would hand a receiver,
// with Service Bus's own annotations (sequence number, enqueued time,
// lock expiry) and the given delivery count.
func overTheWire(t testing.TB, m *azservicebus.AMQPAnnotatedMessage, seq int64, deliveries uint32) *azservicebus.ReceivedMessage {
	t.Helper()
	out := &amqp.Message{
		Header:                &amqp.MessageHeader{DeliveryCount: deliveries},
		ApplicationProperties: m.ApplicationProperties,
		Data:                  m.Body.Data,
		Annotations:           amqp.Annotations{},
	}
	if m.Header != nil {
		out.Header.Durable, out.Header.TTL = m.Header.Durable, m.Header.TTL
	}
	p := m.Properties
	out.Properties = &amqp.MessageProperties{MessageID: p.MessageID, Subject: p.Subject, CorrelationID: p.CorrelationID,
		ContentType: p.ContentType, CreationTime: p.CreationTime, GroupID: p.GroupID}
	for k, v := range m.MessageAnnotations {
		out.Annotations[k] = v
	}
	enq := time.UnixMilli(1700000000000).UTC()
	out.Annotations["x-opt-sequence-number"] = seq
	out.Annotations["x-opt-enqueued-time"] = enq
	b, err := out.MarshalBinary()
	if err != nil {
		t.Fatalf("MarshalBinary: %v", err)
	}
	var in amqp.Message
	if err := in.UnmarshalBinary(b); err != nil {
		t.Fatalf("UnmarshalBinary: %v", err)
	}
	return receivedFrom(&in)
}

// receivedFrom mirrors the SDK's conversion of a received AMQP message.
func receivedFrom(in *amqp.Message) *azservicebus.ReceivedMessage {
	rm := &azservicebus.ReceivedMessage{RawAMQPMessage: &azservicebus.AMQPAnnotatedMessage{
		Body: azservicebus.AMQPAnnotatedMessageBody{Data: in.Data, Value: in.Value}}}
	if len(in.Data) == 1 {
		rm.Body = in.Data[0]
	}
	if p := in.Properties; p != nil {
		rm.RawAMQPMessage.Properties = &azservicebus.AMQPAnnotatedMessageProperties{MessageID: p.MessageID, CreationTime: p.CreationTime}
		if id, ok := p.MessageID.(string); ok {
			rm.MessageID = id
		}
		if id, ok := p.CorrelationID.(string); ok {
			rm.CorrelationID = &id
		}
		rm.SessionID, rm.ContentType, rm.Subject = p.GroupID, p.ContentType, p.Subject
		if in.Header != nil {
			rm.DeliveryCount = in.Header.DeliveryCount + 1
			ttl := in.Header.TTL
			rm.TimeToLive = &ttl
		}
	}
	if in.ApplicationProperties != nil {
		rm.ApplicationProperties = map[string]any{}
		for k, v := range in.ApplicationProperties {
			rm.ApplicationProperties[k] = v
		}
	}
	if s, ok := in.Annotations["x-opt-sequence-number"].(int64); ok {
		rm.SequenceNumber = &s
	}
	if e, ok := in.Annotations["x-opt-enqueued-time"].(time.Time); ok {
		rm.EnqueuedTime = &e
	}
	if s, ok := in.Annotations[annScheduledEnqueueTime].(time.Time); ok {
		rm.ScheduledEnqueueTime = &s
	}
	return rm
}
