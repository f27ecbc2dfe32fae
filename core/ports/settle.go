package ports

import (
	"context"
	"sync"
	"sync/atomic"
)

// SettleOutcome says how the runtime finished with a delivery.
type SettleOutcome string

// Settlement outcomes.
const (
	// SettledAcked: the source was told the message is done (delivered,
	// dead-lettered or dropped by policy).
	SettledAcked SettleOutcome = "acked"
	// SettledRetried: the message was handed back to the source.
	SettledRetried SettleOutcome = "retried"
	// SettledUnsettled: the bridge stopped working on the delivery
	// (shutdown, abandoned source) and left it for the source to
	// redeliver, or the source refused the settlement.
	SettledUnsettled SettleOutcome = "unsettled"
)

// Settlement describes the end of a delivery.
type Settlement struct {
	Outcome SettleOutcome
	// Terminal is true when the message will not come back: it was
	// delivered, dead-lettered or dropped.
	Terminal bool
	// Err is the error that decided the outcome; nil on success.
	Err error
}

// SettleScope collects the hooks processors register for one delivery.
// The runtime installs a scope in the context it passes down the processor
// chain and fires it once the delivery is settled. A scope is reused from
// one delivery to the next by its owner; it is safe for concurrent
// registration.
type SettleScope struct {
	mu    sync.Mutex
	hooks []func(Settlement)
	n     atomic.Int32 // len(hooks), so an empty scope fires without locking
}

// SettleObserver is implemented by deliveries whose source wants to know
// how the runtime ended them, beyond Ack or Retry: an HTTP ingress answers
// its caller with a status chosen from the outcome and its error. The
// runtime calls Settled once, after Ack or Retry returned (or after it gave
// up on the delivery), from the goroutine that handled it.
type SettleObserver interface {
	Settled(st Settlement)
}

type settleScopeKey struct{}

// WithSettleScope returns a context that carries s.
func WithSettleScope(ctx context.Context, s *SettleScope) context.Context {
	return context.WithValue(ctx, settleScopeKey{}, s)
}

// OnSettled registers fn to run once the delivery being processed under
// ctx is settled, whatever the outcome. It reports false when ctx carries
// no settlement scope (a processor used outside the runtime); the caller
// must then release what it holds itself. Hooks run on the runtime's
// goroutine after settlement and must not block.
func OnSettled(ctx context.Context, fn func(Settlement)) bool {
	s, _ := ctx.Value(settleScopeKey{}).(*SettleScope)
	if s == nil {
		return false
	}
	s.mu.Lock()
	s.hooks = append(s.hooks, fn)
	s.n.Store(int32(len(s.hooks)))
	s.mu.Unlock()
	return true
}

// Fire runs every registered hook once, in registration order, with st,
// and empties the scope for the next delivery. A hook must not register
// further hooks.
func (s *SettleScope) Fire(st Settlement) {
	if s.n.Load() == 0 {
		return
	}
	s.mu.Lock()
	hooks := s.hooks
	s.mu.Unlock()
	for _, h := range hooks {
		h(st)
	}
	s.mu.Lock()
	clear(s.hooks)
	s.hooks = s.hooks[:0]
	s.n.Store(0)
	s.mu.Unlock()
}
