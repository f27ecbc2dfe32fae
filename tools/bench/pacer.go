package bench

import (
	"context"
	"time"
)

// Pacer spreads a load generator's messages evenly over time: message i
// is due at start + i/rate. A zero rate never waits.
type Pacer struct {
	rate  int
	start time.Time
}

// NewPacer paces at rate messages per second from now.
func NewPacer(rate int) *Pacer { return &Pacer{rate: rate, start: time.Now()} }

// Due is when message i may be sent.
func (p *Pacer) Due(i int) time.Time {
	if p.rate <= 0 {
		return p.start
	}
	return p.start.Add(time.Duration(float64(i) / float64(p.rate) * float64(time.Second)))
}

// Wait blocks until message i is due or ctx ends.
func (p *Pacer) Wait(ctx context.Context, i int) error {
	d := time.Until(p.Due(i))
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
