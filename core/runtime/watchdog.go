package runtime

import (
	"context"
	"time"
)

// watchdogTick returns how often a runner's watchdog checks for overdue
// sends: a twentieth of the timeout, within [1ms, 250ms]. A send therefore
// times out within one tick of send_timeout.
func watchdogTick(timeout time.Duration) time.Duration {
	return min(max(timeout/20, time.Millisecond), 250*time.Millisecond)
}

// runWatchdog keeps the runner's coarse clock current and cancels sends
// that overran the route's send timeout, until ctx ends.
func (rn *runner) runWatchdog(ctx context.Context) {
	t := time.NewTicker(watchdogTick(rn.policy.SendTimeout))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			n := rn.refreshCoarse(now)
			rn.mu.Lock()
			for _, w := range rn.pool {
				w.guard.expireIfOverdue(n, rn.policy.SendTimeout)
			}
			rn.mu.Unlock()
		}
	}
}
