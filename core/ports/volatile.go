package ports

// Volatile is implemented by stores that keep what they hold only in the
// process's memory (the memory store). At stop, the runtime drains a
// volatile outbox for as long as the stop timeout allows instead of
// leaving its backlog for a next start that will never see it, and it
// reports what a volatile outbox or DLQ still held: that is lost.
type Volatile interface {
	// Volatile reports whether the contents die with the process.
	Volatile() bool
}

// IsVolatile reports whether v is a store whose contents die with the
// process.
func IsVolatile(v any) bool {
	vs, ok := v.(Volatile)
	return ok && vs.Volatile()
}
