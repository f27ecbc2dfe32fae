package sqlite

// WithShared lets several processes of one host open the file at the same
// time, which the instances of a clustered bridge do: each drains a
// partition only while it holds the partition's lease, and every claim,
// complete and replay carries the lease's fencing token, so two processes
// never settle the same record. The store then takes its lock file shared:
// shared stores open the file together, and a store that is not shared
// (which drains under the zero token, unfenced) is refused while any
// shared one has it open, and the other way round. SQLite's own locking
// orders the processes' transactions; each waits up to the busy timeout
// for the others' commits. The default is false.
func WithShared(on bool) Option { return func(cfg *config) { cfg.shared = on } }
