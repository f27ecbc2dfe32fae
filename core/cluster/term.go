package cluster

import (
	"context"
	"sync"
	"time"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// Term is one tenure of a lease: from the Acquire that won it to the
// step-down that ended it. Holders (drainers, exclusive receivers) get it
// from Manager.Hold, write with its Token while Valid, stop taking new
// work when Lost is closed, and call Release when they stopped using it.
type Term struct {
	tok    ports.LeaseToken
	clock  ports.Clock
	margin time.Duration

	mu    sync.Mutex
	until time.Time // the lease is certainly ours before this instant

	lost     chan struct{}
	loseOnce sync.Once
	ctx      context.Context
	cancel   context.CancelFunc
	holders  sync.WaitGroup
}

func newTerm(tok ports.LeaseToken, clk ports.Clock, margin time.Duration, until time.Time) *Term {
	t := &Term{tok: tok, clock: clk, margin: margin, until: until, lost: make(chan struct{})}
	t.ctx, t.cancel = context.WithCancel(context.Background())
	return t
}

// Token is the fencing token of the term: every guarded store write made
// under the lease carries it.
func (t *Term) Token() ports.LeaseToken { return t.tok }

// Lost is closed when the step-down of the term began: holders take no
// new work and finish what they have in hand within the grace.
func (t *Term) Lost() <-chan struct{} { return t.lost }

// Context ends when the step-down grace is over (or the term was lost to
// another owner): work still in hand is abandoned, unsettled.
func (t *Term) Context() context.Context { return t.ctx }

// Valid reports whether the lease is certainly still this term's: the
// step-down has not begun and the last successful renewal (or the
// acquisition) was recent enough that the store cannot have expired it.
// A process that slept through its renewals finds Valid false the moment
// it wakes, before its renewal loop noticed anything.
func (t *Term) Valid() bool {
	select {
	case <-t.lost:
		return false
	default:
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.clock.Now().Before(t.until)
}

// ValidUntil is the instant Valid turns false unless a renewal succeeds.
func (t *Term) ValidUntil() time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.until
}

// Release tells the manager that a holder stopped using the term. Every
// Hold that returned the term is matched by one Release.
func (t *Term) Release() { t.holders.Done() }

// extend moves the validity after a successful renewal sent at sent.
func (t *Term) extend(sent time.Time, ttl time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if u := sent.Add(ttl - t.margin); u.After(t.until) {
		t.until = u
	}
}

// lose begins the step-down: Lost closes.
func (t *Term) lose() { t.loseOnce.Do(func() { close(t.lost) }) }

// end closes the term for good: Lost and Context both end.
func (t *Term) end() {
	t.lose()
	t.cancel()
}

// waitHolders waits until every holder released the term or d passed on
// clk; it reports whether all of them did.
func (t *Term) waitHolders(clk ports.Clock, d time.Duration) bool {
	done := make(chan struct{})
	go func() {
		t.holders.Wait()
		close(done)
	}()
	if d <= 0 {
		select {
		case <-done:
			return true
		default:
			return false
		}
	}
	timer := clk.NewTimer(d)
	defer timer.Stop()
	select {
	case <-done:
		return true
	case <-timer.C():
		return false
	}
}
