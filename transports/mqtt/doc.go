// Package mqtt is gobridge's MQTT v5 transport, built on
// github.com/eclipse/paho.golang (autopaho manages the connection).
//
// A Session is one connection to a broker, shared by the receivers and
// senders configured on it. It reconnects with a bounded, jittered
// backoff, resumes the broker-side session when configured to, and
// re-applies its subscriptions after every reconnect. Between the network
// (after TLS or WebSocket) and the client sits the ingress guard, which
// checks every packet before paho decodes it and ends the session for
// good on a packet a compliant broker would not send.
//
// A Receiver hands each message of its subscriptions to a route and
// acknowledges a QoS 1/2 message to the broker (PUBACK, PUBREC) only when
// the route settled it. MQTT cannot ask the broker to resend a message,
// so Retry holds the message in the process and hands it to the route
// again after the delay, unless the hold would hold back the in-order
// acknowledgements of messages already settled behind it: then Retry
// refuses, and the route dead-letters the message instead of stalling the
// session.
//
// A Sender publishes to the dispatch address (or a default topic), never
// to the subject, which travels in the gobridge.subject user property. A
// QoS 1/2 send returns once the broker acknowledged it; broker reason
// codes become core/fault errors.
package mqtt
