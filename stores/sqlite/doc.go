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
// The lease table lives in the database file, so two processes on one host
// that open the same file see one lease holder: every lease change is a
// BEGIN IMMEDIATE transaction and SQLite's file locks serialise them.
//
// Open verifies the file (PRAGMA quick_check by default) and applies the
// schema migrations; a corrupt, foreign, newer or unwritable file is an
// error naming the path, never an empty store in its place.
package sqlite
