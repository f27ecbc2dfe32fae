// Package cluster keeps the leases of a clustered bridge: which instance
// may drain an outbox partition or own an exclusive source.
//
// A Manager keeps one lease key on a ports.LeaseStore. It tries to take
// the lease, renews it on a fixed cadence while it holds it, and steps
// down when renewals keep failing or the store says another owner took
// over. While the lease is held, the Manager lends it out as a Term: the
// token to write with, a channel closed when the step-down begins, and a
// Valid check that turns false as soon as the lease may have expired on
// the store, even when the process slept through its renewals (a SIGSTOP
// or a long pause). Everything is driven by an injected clock, so tests
// run on a fake one.
//
// The states follow the lease lifecycle: Idle (waiting to try), Acquiring,
// Active (held), Renewing (a renewal in progress or failed), SteppingDown
// (holders stop, in-flight writes get the step-down grace) and Released.
package cluster
