// Package amqp10 is gobridge's AMQP 1.0 transport, built on
// github.com/Azure/go-amqp. It speaks to any AMQP 1.0 peer: RabbitMQ with
// its AMQP 1.0 plugin, Qpid brokers, Artemis, Azure Service Bus.
//
// A Session owns one connection (amqp, or amqps with a configurable CA,
// client certificate and server name; SASL PLAIN, ANONYMOUS or, with a
// client certificate, EXTERNAL; a container id and an idle timeout) and redials it with bounded,
// jittered backoff whenever it drops. Receivers and senders open their
// links on AMQP sessions of their own on that connection, and attach them
// again after a reconnect.
//
// Receiver attaches a receiving link to one address. Its link credit
// follows the route's in-flight limit, and deliveries stay unsettled until
// the route settled them: Ack disposes accepted, Retry disposes modified
// with delivery-failed (or released) after the requested delay, and a
// delivery the route refuses is released. The message header's
// delivery-count is the redelivery count, except with Retry released: a
// peer does not count releases, so the runtime counts attempts itself.
//
// Sender sends unsettled, many deliveries in flight per link, and maps
// the peer's outcome to an error: rejected is permanent, released and
// modified are transient. Messages are durable by default.
package amqp10
