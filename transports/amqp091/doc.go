// Package amqp091 is gobridge's AMQP 0-9-1 transport for RabbitMQ, built on
// github.com/rabbitmq/amqp091-go.
//
// A Session owns one connection: it dials (amqp or amqps, with TLS
// settings, vhost, heartbeat and a connection name), declares the
// configured topology (exchanges, queues with their arguments, bindings)
// and reconnects with bounded, jittered backoff whenever the connection
// drops, declaring the topology again before anything uses the new
// connection. It implements ports.Session and reports health and lifecycle
// events.
//
// Receiver consumes one queue with manual acknowledgements and a prefetch
// that follows the route's in-flight limit. Acks of consecutive delivery
// tags are coalesced into one multiple ack. Delivery.Retry republishes the
// message to a per-queue retry exchange whose TTL'd wait queues dead-letter
// it back to the source queue once the delay has passed; when configured,
// the delivery is instead held for the delay and then nacked with requeue.
// Deliveries end their abandon context when their channel closes, so the
// runtime stops working on messages the broker has taken back.
//
// Sender publishes with publisher confirms, many messages in flight per
// channel. The routing key is OutboundMessage.Address, or the configured
// routing key when the address is empty; it is never derived from the
// subject, which travels in the gobridge.subject header. Mandatory
// publishes that the broker returns fail with a permanent NOT_FOUND error.
package amqp091
