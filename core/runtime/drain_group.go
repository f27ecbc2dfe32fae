package runtime

import (
	"context"
	"sync"
)

// drainGroup owns the drainers of every shared_outbox route of a runtime.
type drainGroup struct {
	stop   chan struct{}
	hard   context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// startDrainers starts one drainer per binding of every shared_outbox
// route.
func startDrainers(runners []*runner) *drainGroup {
	g := &drainGroup{stop: make(chan struct{})}
	g.hard, g.cancel = context.WithCancel(context.Background())
	for _, rn := range runners {
		if !rn.outbox {
			continue
		}
		for i := range rn.route.Bindings {
			dr := newDrainer(rn, &rn.route.Bindings[i])
			g.wg.Go(func() { dr.run(g.stop, g.hard) })
		}
	}
	return g
}

// shutdown lets each drainer finish the batch in hand until deadline
// fires, then cancels what is left and waits for the drainers to return.
func (g *drainGroup) shutdown(deadline <-chan struct{}) {
	close(g.stop)
	done := make(chan struct{})
	go func() {
		g.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-deadline:
		g.cancel()
		<-done
	}
	g.cancel()
}
