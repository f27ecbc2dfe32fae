package bench

import (
	"context"
	"errors"
)

// DefaultPublishers is how many publishers Stripes runs when asked for
// none.
const DefaultPublishers = 4

// Stripes runs a load generator's publishers side by side and waits for
// all of them: publisher p of pubs (DefaultPublishers when pubs <= 0)
// sends sequence numbers p, p+pubs, p+2*pubs, ..., waiting on the one
// pacer they share (rate messages per second, 0 never waits). It returns
// the publishers' errors joined.
func Stripes(ctx context.Context, pubs, rate int, stripe func(ctx context.Context, pace *Pacer, first, step int) error) error {
	if pubs <= 0 {
		pubs = DefaultPublishers
	}
	pace := NewPacer(rate)
	errs := make(chan error, pubs)
	for p := range pubs {
		go func() { errs <- stripe(ctx, pace, p, pubs) }()
	}
	all := make([]error, 0, pubs)
	for range pubs {
		all = append(all, <-errs)
	}
	return errors.Join(all...)
}
