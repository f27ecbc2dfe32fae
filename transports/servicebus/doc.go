// Package servicebus is the Azure Service Bus transport of gobridge, built
// on the azservicebus SDK (pinned at v1.11.0).
//
// A Receiver reads a queue or a topic subscription under peek locks,
// holding at most the route's max_in_flight messages locked. Its
// deliveries complete the message on Ack, keep it locked for the delay
// and then abandon it on Retry, renew the lock on Extend (the runtime
// calls it before the lock expires: deliveries implement ports.Leased),
// and move it to the entity's dead-letter subqueue on Reject when
// configured to. Session-enabled entities are read session by session,
// several sessions side by side, the messages of one session one at a
// time in order, with the session lock renewed while the session is held.
//
// A Sender sends with SendMessageBatch, splitting when a batch is full,
// and reports one result per message. The envelope travels as the message
// body, its ID, subject and creation time in the native properties, and
// its headers as application properties. See README.md.
package servicebus
