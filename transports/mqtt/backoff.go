package mqtt

import (
	"math"
	"sync"
	"time"
)

// reconnectBackoff computes the delay before connection attempts. autopaho
// numbers attempts from 0 after every lost connection; a connection that
// lived less than the stable period does not reset the ladder, so a
// broker that accepts and drops at once sees growing delays, not a storm.
type reconnectBackoff struct {
	cfg  ReconnectConfig
	rand func() float64

	mu     sync.Mutex
	flaps  int       // consecutive connections that dropped quickly
	upAt   time.Time // when the current connection came up
	stable time.Duration
}

func newReconnectBackoff(cfg ReconnectConfig, rnd func() float64) *reconnectBackoff {
	return &reconnectBackoff{cfg: cfg, rand: rnd, stable: max(cfg.Max, 10*time.Second)}
}

// up records a successful connection.
func (b *reconnectBackoff) up(now time.Time) {
	b.mu.Lock()
	b.upAt = now
	b.mu.Unlock()
}

// down records a lost connection.
func (b *reconnectBackoff) down(now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.upAt.IsZero() && now.Sub(b.upAt) >= b.stable {
		b.flaps = 0
	} else {
		b.flaps++
	}
	b.upAt = time.Time{}
}

// delay is autopaho's ReconnectBackoff: the wait before attempt n of the
// current round (0 is the first attempt after a loss, or ever).
func (b *reconnectBackoff) delay(n int) time.Duration {
	b.mu.Lock()
	step := n + b.flaps
	b.mu.Unlock()
	return b.forStep(step)
}

// forStep is the jittered delay of the step-th retry; step 0 is immediate.
func (b *reconnectBackoff) forStep(step int) time.Duration {
	if step <= 0 {
		return 0
	}
	d := float64(b.cfg.Initial) * math.Pow(b.cfg.Multiplier, float64(step-1))
	if d > float64(b.cfg.Max) || math.IsInf(d, 0) || math.IsNaN(d) {
		d = float64(b.cfg.Max)
	}
	j := b.cfg.Jitter
	return time.Duration(d*(1-j) + b.rand()*d*j)
}
