// Package sqlite is a durable gobridge store on one SQLite database file.
// A *Store implements ports.OutboxStore (with ports.OutboxBatchCompleter),
// ports.DLQStore and ports.LeaseStore.
//
// All writes, including Claim and every lease change, go through a single
// writer goroutine that commits everything waiting in one transaction, so
// many concurrent callers share one fsync (group commit). A write call
// returns only after its transaction committed; with the default
// synchronous=FULL that means the data survives power loss. Reads (Depth,
// the DLQ listings, lease Read) use a separate pool of read-only
// connections, which WAL mode lets run beside the writer.
//
// Open takes an exclusive lock on the file (a flock on path + ".lock") that
// the store holds until Close, so one process, and one Store in it, drains
// a file at a time. The lease table lives in the database file and
// outlives the process that wrote it.
//
// Open verifies the file (PRAGMA quick_check by default) and applies the
// schema migrations; a corrupt, foreign, newer or unwritable file is an
// error naming the path, never an empty store in its place.
package sqlite
