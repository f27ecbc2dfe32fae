// Package headerjson stores envelope headers as JSON that keeps their Go
// types: Encode writes a header map, Decode gives the same map back. The
// durable stores share it, so that an outbox or DLQ record reads alike
// whichever store holds it.
package headerjson
