package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

// waitTimeout bounds every wait in these tests; nothing should come close.
const waitTimeout = 10 * time.Second

func waitCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	t.Cleanup(cancel)
	return ctx
}

// start builds a runtime and runs it until the test ends. The returned stop
// function cancels it and returns Run's error.
func start(t *testing.T, routes []runtime.Route, opts runtime.Options) (stop func() error) {
	t.Helper()
	_, stop = startRT(t, routes, opts)
	return stop
}

// startRT is start that also returns the runtime.
func startRT(t *testing.T, routes []runtime.Route, opts runtime.Options) (rt *runtime.Runtime, stop func() error) {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	rt, err := runtime.New(routes, opts)
	if err != nil {
		t.Fatalf("runtime.New: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- rt.Run(ctx) }()
	var once sync.Once
	var runErr error
	stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case runErr = <-done:
			case <-time.After(waitTimeout):
				t.Errorf("runtime did not stop within %s", waitTimeout)
			}
		})
		return runErr
	}
	t.Cleanup(func() { _ = stop() })
	return rt, stop
}

// publish sends messages into a memory receiver and returns their IDs.
func publish(t *testing.T, pub interface {
	Publish(context.Context, *messaging.Envelope) error
}, envs ...*messaging.Envelope) []string {
	t.Helper()
	ids := make([]string, len(envs))
	for i, e := range envs {
		if err := pub.Publish(waitCtx(t), e); err != nil {
			t.Fatalf("publish: %v", err)
		}
		ids[i] = e.ID
	}
	return ids
}

// memDLQ is a DLQ writer that records entries and can be told to fail.
type memDLQ struct {
	mu      sync.Mutex
	entries []ports.DLQEntry
	n       int // entries ever written, for IDs
	fail    error
	changed chan struct{}
}

func newMemDLQ() *memDLQ { return &memDLQ{changed: make(chan struct{}, 1)} }

func (d *memDLQ) Write(_ context.Context, e ports.DLQEntry) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.fail != nil {
		return d.fail
	}
	if e.ID == "" {
		d.n++
		e.ID = fmt.Sprintf("dlq-%d", d.n)
	}
	d.entries = append(d.entries, e)
	select {
	case d.changed <- struct{}{}:
	default:
	}
	return nil
}

func (d *memDLQ) Get(_ context.Context, id string) (ports.DLQEntry, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, e := range d.entries {
		if e.ID == id {
			return e, nil
		}
	}
	return ports.DLQEntry{}, fault.ErrNotFound
}

func (d *memDLQ) Delete(_ context.Context, id string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	for i, e := range d.entries {
		if e.ID == id {
			d.entries = append(d.entries[:i], d.entries[i+1:]...)
			return nil
		}
	}
	return fault.ErrNotFound
}

func (d *memDLQ) List(context.Context, ports.DLQFilter, string, int) (ports.DLQPage, error) {
	return ports.DLQPage{Entries: d.all()}, nil
}

func (d *memDLQ) Purge(context.Context, ports.DLQFilter) (int, error) {
	return 0, fault.ErrNotSupported
}

func (d *memDLQ) Count(context.Context, ports.DLQFilter) (int, error) { return len(d.all()), nil }

func (d *memDLQ) setFail(err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.fail = err
}

func (d *memDLQ) all() []ports.DLQEntry {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]ports.DLQEntry(nil), d.entries...)
}

// wait blocks until at least n entries were written.
func (d *memDLQ) wait(t *testing.T, n int) []ports.DLQEntry {
	t.Helper()
	ctx := waitCtx(t)
	for {
		if es := d.all(); len(es) >= n {
			return es
		}
		select {
		case <-d.changed:
		case <-ctx.Done():
			t.Fatalf("waiting for %d DLQ entries: have %d", n, len(d.all()))
		}
	}
}

// procFunc adapts a function to ports.Processor.
type procFunc struct {
	name string
	fn   func(ctx context.Context, env *messaging.Envelope, next ports.ProcessorFunc) error
}

func (p procFunc) Name() string { return p.name }
func (p procFunc) Process(ctx context.Context, env *messaging.Envelope, next ports.ProcessorFunc) error {
	return p.fn(ctx, env, next)
}

// failingReceiver fails at once with err.
type failingReceiver struct{ err error }

func (f failingReceiver) Run(context.Context, ports.EmitFunc) error { return f.err }

var errBoom = errors.New("boom")

func ptr[T any](v T) *T { return &v }

// oneDelivery is a source that hands out its one delivery, then waits for
// the route to stop.
type oneDelivery struct{ d ports.Delivery }

func (s oneDelivery) Run(ctx context.Context, emit ports.EmitFunc) error {
	if err := emit(ctx, s.d); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}
