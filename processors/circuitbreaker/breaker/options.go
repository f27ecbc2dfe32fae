package breaker

import (
	"github.com/gobridge-oss/gobridge/core/clock"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// Option customises a Breaker built by New.
type Option func(*settings)

type settings struct {
	key      string
	clk      ports.Clock
	onChange func(Transition)
}

func newSettings(opts []Option) settings {
	s := settings{}
	for _, o := range opts {
		if o != nil {
			o(&s)
		}
	}
	if s.clk == nil {
		s.clk = clock.System()
	}
	return s
}

// WithKey names the breaker; the name appears in Metrics and Transition.
func WithKey(key string) Option { return func(s *settings) { s.key = key } }

// WithClock sets the time source (default: the system clock). Tests pass a
// clock.Fake.
func WithClock(c ports.Clock) Option { return func(s *settings) { s.clk = c } }

// WithOnStateChange installs fn, called after every state transition. It
// runs on the goroutine that caused the transition, after the breaker's
// lock is released, so it may call the breaker; it should return quickly.
func WithOnStateChange(fn func(Transition)) Option {
	return func(s *settings) { s.onChange = fn }
}
