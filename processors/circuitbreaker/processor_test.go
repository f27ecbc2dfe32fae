package circuitbreaker

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/processors/circuitbreaker/breaker"
	"github.com/google/go-cmp/cmp"
)

// TestDefaultClassifier covers the CountError row of the specification:
// only transient errors trip the breaker by default.
func TestDefaultClassifier(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	type counts struct {
		Successes, Failures, Ignored uint64
		State                        State
	}
	tests := []struct {
		name string
		ctx  context.Context
		err  error
		want counts
	}{
		{"success", nil, nil, counts{Successes: 1}},
		{"transient unavailable", nil, fault.ErrUnavailable, counts{Failures: 1, State: Open}},
		{"transient timeout wrapped", nil, fmt.Errorf("send: %w", fault.ErrTimeout), counts{Failures: 1, State: Open}},
		{"transient tenant quota", nil, fault.ErrTenantQuotaExceeded, counts{Failures: 1, State: Open}},
		{"unknown error is transient", nil, errors.New("boom"), counts{Failures: 1, State: Open}},
		{"permanent not counted", nil, fault.ErrNotAuthorized, counts{Ignored: 1}},
		{"rejected not counted", nil, fault.ErrInvalidPayload, counts{Ignored: 1}},
		{"filtered not counted", nil, fault.ErrMessageFiltered, counts{Ignored: 1}},
		{"expired not counted", nil, fault.ErrMessageExpired, counts{Ignored: 1}},
		{"cancelled delivery not counted", cancelled, context.Canceled, counts{Ignored: 1}},
		{"cancel from a live context counts", nil, context.Canceled, counts{Failures: 1, State: Open}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := newProc(t, Config{FailureThreshold: 1})
			ctx := tt.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			err := p.Process(ctx, messaging.NewEnvelope("s", nil), failWith(tt.err))
			if err != tt.err {
				t.Errorf("Process = %v, want the error of next %v", err, tt.err)
			}
			m := p.Metrics()["global"]
			got := counts{m.TotalSuccesses, m.TotalFailures, m.TotalIgnored, m.State}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestOpenCircuit covers the Open -> Open row: requests are refused with
// ErrUnavailable carrying the remaining open time, next is not called, and
// the breaker probes once the reset timeout has passed.
func TestOpenCircuit(t *testing.T) {
	p, clk := newProc(t, Config{Name: "cb1", FailureThreshold: 2, ResetTimeout: 20 * time.Second})
	for range 2 {
		_ = run(p, "s", failWith(fault.ErrBrokerBusy))
	}
	clk.Advance(5 * time.Second)
	called := false
	err := run(p, "s", func(context.Context, *messaging.Envelope) error { called = true; return nil })
	if called {
		t.Fatal("next called while open")
	}
	be, isBridge := fault.As(err)
	if !isBridge || !errors.Is(err, fault.ErrUnavailable) || !errors.Is(err, breaker.ErrOpen) {
		t.Fatalf("Process = %v, want ErrUnavailable wrapping breaker.ErrOpen", err)
	}
	if ra := fault.RetryAfter(err); ra != 15*time.Second {
		t.Errorf("RetryAfter = %v, want 15s", ra)
	}
	if !fault.IsRecoverable(err) {
		t.Errorf("refusal must be transient so the route retries it")
	}
	wantAttrs := []fault.Attr{{Key: "processor", Value: "cb1"}, {Key: "breaker_key", Value: "global"},
		{Key: "breaker_state", Value: "open"}}
	if diff := cmp.Diff(wantAttrs, be.Attrs()); diff != "" {
		t.Errorf("attrs (-want +got):\n%s", diff)
	}

	clk.Advance(15 * time.Second)
	for i := range 2 {
		if err := run(p, "s", ok); err != nil {
			t.Fatalf("probe %d: %v", i, err)
		}
	}
	if s := p.Metrics()["global"].State; s != Closed {
		t.Errorf("state after two probe successes = %v, want closed", s)
	}
}

func TestHalfOpenProbeSlotsBusy(t *testing.T) {
	p, clk := newProc(t, Config{FailureThreshold: 1, ResetTimeout: time.Second})
	_ = run(p, "s", failWith(fault.ErrTimeout))
	clk.Advance(time.Second)
	g := newGate()
	probe := g.start(p, "s")
	err := run(p, "s", ok)
	if !errors.Is(err, fault.ErrUnavailable) || !errors.Is(err, breaker.ErrProbeLimit) || fault.RetryAfter(err) != 0 {
		t.Errorf("second call while the probe runs = %v", err)
	}
	g.release <- nil
	if err := <-probe; err != nil {
		t.Fatal(err)
	}
	if err := run(p, "s", ok); err != nil {
		t.Errorf("after the probe finished: %v", err)
	}
}

// TestKeyPartitions covers the key extraction table: one breaker per
// subject or header value; a failing key does not block the others.
func TestKeyPartitions(t *testing.T) {
	hdr := func(v string) *messaging.Envelope {
		e := messaging.NewEnvelope("same", nil)
		e.Headers["tenant-id"] = v
		return e
	}
	subj := func(v string) *messaging.Envelope { return messaging.NewEnvelope(v, nil) }
	tests := []struct {
		name string
		cfg  Config
		opts []Option
		env  func(string) *messaging.Envelope
	}{
		{"subject from config", Config{FailureThreshold: 1, Key: KeySubject}, nil, subj},
		{"header from config", Config{FailureThreshold: 1, Key: KeyHeader, HeaderKey: "tenant-id"}, nil, hdr},
		{"subject from option", Config{FailureThreshold: 1}, []Option{WithKeyExtractor(SubjectKey)}, subj},
		{"header from option", Config{FailureThreshold: 1}, []Option{WithKeyExtractor(HeaderKey("tenant-id"))}, hdr},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := newProc(t, tt.cfg, tt.opts...)
			ctx := context.Background()
			_ = p.Process(ctx, tt.env("a"), failWith(fault.ErrUnavailable))
			if err := p.Process(ctx, tt.env("a"), ok); !errors.Is(err, breaker.ErrOpen) {
				t.Errorf("key a: %v, want open", err)
			}
			if err := p.Process(ctx, tt.env("b"), ok); err != nil {
				t.Errorf("key b: %v, want admitted", err)
			}
			got := map[string]State{}
			for k, m := range p.Metrics() {
				got[k] = m.State
			}
			if diff := cmp.Diff(map[string]State{"a": Open, "b": Closed}, got); diff != "" {
				t.Errorf("states (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGlobalKeyOption(t *testing.T) {
	p, _ := newProc(t, Config{FailureThreshold: 1, Key: KeySubject}, WithKeyExtractor(GlobalKey))
	_ = run(p, "a", failWith(fault.ErrUnavailable))
	if err := run(p, "b", ok); !errors.Is(err, breaker.ErrOpen) {
		t.Errorf("other subject: %v, want the shared breaker open", err)
	}
}

func TestCustomClassifier(t *testing.T) {
	p, _ := newProc(t, Config{FailureThreshold: 1},
		WithClassifier(func(err error) bool { return errors.Is(err, fault.ErrNotAuthorized) }))
	_ = run(p, "s", failWith(fault.ErrUnavailable))
	if s := p.Metrics()["global"].State; s != Closed {
		t.Fatalf("transient error counted by a classifier that ignores it (%v)", s)
	}
	_ = run(p, "s", failWith(fault.ErrNotAuthorized))
	if s := p.Metrics()["global"].State; s != Open {
		t.Errorf("state = %v, want open", s)
	}
}

func TestPanicReleasesProbe(t *testing.T) {
	p, clk := newProc(t, Config{FailureThreshold: 1, ResetTimeout: time.Second})
	_ = run(p, "s", failWith(fault.ErrUnavailable))
	clk.Advance(time.Second)
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("panic swallowed")
			}
		}()
		_ = run(p, "s", func(context.Context, *messaging.Envelope) error { panic("downstream bug") })
	}()
	m := p.Metrics()["global"]
	if m.State != HalfOpen || m.ProbesInFlight != 0 || m.TotalIgnored != 1 {
		t.Fatalf("after a panicking probe: %+v", m)
	}
	if err := run(p, "s", ok); err != nil {
		t.Errorf("next probe refused: %v", err)
	}
}

func TestNilEnvelope(t *testing.T) {
	for _, cfg := range []Config{{}, {Key: KeySubject}, {Key: KeyHeader, HeaderKey: "h"}} {
		p, _ := newProc(t, cfg)
		if err := p.Process(context.Background(), nil, ok); err != nil {
			t.Errorf("%v: %v", cfg.Key, err)
		}
	}
}

func TestNameAndConfig(t *testing.T) {
	p, _ := newProc(t, Config{})
	if p.Name() != DefaultName || p.Config().FailureThreshold != 5 {
		t.Errorf("Name %q, Config %+v", p.Name(), p.Config())
	}
	if s := p.Stats(); s != (Stats{Size: 1, Capacity: DefaultMaxBreakers}) {
		t.Errorf("Stats = %+v", s)
	}
}
