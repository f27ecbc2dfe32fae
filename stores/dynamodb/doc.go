// Package dynamodb is a gobridge store (outbox, DLQ and lease) on Amazon
// DynamoDB, for bridges that run on more than one machine: several bridge
// processes share one table set, and conditional writes coordinate them.
//
// Records are claimed with conditional updates that carry the claimant's
// fencing token, each partition keeps the highest token version it has
// seen, leases are conditional puts on a version attribute, and DLQ
// entries are listed in write order with an opaque cursor. Open checks (or
// creates) the three tables; Factory is the registry factory of
// `type: dynamodb`. The README documents the key schema, the sequence
// scheme and what a forwarded message costs in capacity units.
package dynamodb
