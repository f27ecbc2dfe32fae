package tenant

import "context"

// TenantInfo is what a TenantValidator knows about a tenant.
type TenantInfo struct {
	// ID is the tenant's identifier as the validator knows it. The
	// processor keeps using the ID read from the header for tracking.
	ID string
	// Active is false for a tenant whose messages must be refused.
	Active bool
	// MaxMessageSizeBytes caps the payload size; zero or less means no
	// cap.
	MaxMessageSizeBytes int64
	// MaxInFlight caps the tenant's concurrent deliveries when the usage
	// tracker implements TenantUsageReader; zero or less means no cap.
	MaxInFlight int64
}

// TenantValidator resolves a tenant ID. Return an error only when the
// answer is unknown (store down, bad credentials); an unknown or disabled
// tenant is best reported as TenantInfo{Active: false}, which drops the
// message as rejected. A recoverable error makes the processor fail the
// message transiently so it is retried; any other error is passed on with
// its own class.
type TenantValidator interface {
	Validate(ctx context.Context, tenantID string) (TenantInfo, error)
}

// TenantUsageTracker counts a tenant's usage. The processor adds one
// in-flight delivery before passing a message on and removes it exactly
// once when the delivery settles; it adds one processed message for each
// delivery that ended successfully. Errors are logged and counted, never
// fatal to the message.
type TenantUsageTracker interface {
	IncrementInFlight(ctx context.Context, tenantID string) error
	DecrementInFlight(ctx context.Context, tenantID string) error
	IncrementProcessed(ctx context.Context, tenantID string) error
}

// Usage is a tenant's current counters.
type Usage struct {
	// InFlight is the number of deliveries admitted and not yet settled.
	InFlight int64
	// Processed is the number of deliveries that ended successfully.
	Processed int64
}

// TenantUsageReader is implemented by a tracker that can report usage.
// Only such a tracker, combined with a validator returning a positive
// TenantInfo.MaxInFlight, turns on the in-flight ceiling.
type TenantUsageReader interface {
	Usage(ctx context.Context, tenantID string) (Usage, error)
}

// TenantUsageReconciler is an optional extension of a usage store shared
// by several bridge processes.
//
// The in-flight counter relies on every increment being paired with a
// decrement. A process that dies in between (killed, out of memory, lost
// host) leaves its increments behind in a shared store, and a tenant whose
// leaked count reaches its ceiling is throttled for good. A shared store
// must therefore make stranded counts decay: either each increment is a
// lease the store expires on its own, or the store implements this
// interface and something calls ReconcileInFlight when an instance starts
// or takes over from a dead one. A plain shared counter with neither does
// not meet the contract. A tracker private to one process (such as
// MemoryTracker) is exempt: its counts die with it.
//
// Nothing in this module calls ReconcileInFlight; wiring it is the
// operator's job.
type TenantUsageReconciler interface {
	// ReconcileInFlight removes in-flight counts whose holder is gone, by
	// the store's own bookkeeping, and reports how many it removed.
	ReconcileInFlight(ctx context.Context) (released int64, err error)
}
