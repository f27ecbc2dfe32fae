package circuitbreaker

import (
	"context"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/clock"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

var t0 = time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)

func newProc(t testing.TB, cfg Config, opts ...Option) (*Processor, *clock.Fake) {
	t.Helper()
	clk := clock.NewFake(t0)
	p, err := New(cfg, append([]Option{WithClock(clk)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return p, clk
}

func ok(context.Context, *messaging.Envelope) error { return nil }

func failWith(err error) ports.ProcessorFunc {
	return func(context.Context, *messaging.Envelope) error { return err }
}

func run(p *Processor, subject string, next ports.ProcessorFunc) error {
	return p.Process(context.Background(), messaging.NewEnvelope(subject, nil), next)
}

// gate is a next function that blocks until released, so a test can hold
// calls in flight without sleeping.
type gate struct {
	entered chan struct{}
	release chan error
}

func newGate() *gate { return &gate{entered: make(chan struct{}, 64), release: make(chan error, 64)} }

func (g *gate) next(context.Context, *messaging.Envelope) error {
	g.entered <- struct{}{}
	return <-g.release
}

// start runs one call through the gate on its own goroutine, waits until it
// is inside next and returns a channel with the call's result.
func (g *gate) start(p *Processor, subject string) <-chan error {
	done := make(chan error, 1)
	go func() { done <- run(p, subject, g.next) }()
	<-g.entered
	return done
}
