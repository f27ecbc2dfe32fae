// Package clock provides the two implementations of ports.Clock: the
// system clock for production and a manually advanced fake for
// deterministic tests.
package clock

import (
	"time"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// System returns a clock backed by the time package.
func System() ports.Clock { return systemClock{} }

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) NewTimer(d time.Duration) ports.Timer {
	return systemTimer{time.NewTimer(d)}
}

type systemTimer struct{ t *time.Timer }

func (s systemTimer) C() <-chan time.Time        { return s.t.C }
func (s systemTimer) Stop() bool                 { return s.t.Stop() }
func (s systemTimer) Reset(d time.Duration) bool { return s.t.Reset(d) }
