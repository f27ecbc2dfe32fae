// Package ports declares the interfaces that connect the runtime to its
// plugins: transports (Receiver, Delivery, Sender, BatchSender, Session),
// processors, destination resolvers, the clock, and the outbox, DLQ,
// lease and stream-log stores.
//
// Each interface documents its contract; core/conformance holds test
// suites that check a plugin honours it.
package ports
