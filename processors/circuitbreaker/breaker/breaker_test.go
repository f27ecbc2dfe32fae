package breaker

import (
	"errors"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/clock"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var t0 = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

// step is one action against a breaker in a table test.
type step struct {
	call    bool          // Allow, then Record(outcome) at once when admitted
	outcome Outcome       // for call
	advance time.Duration // move the fake clock
	hold    bool          // Allow and keep the token (a call in flight)
	release Outcome       // with releaseHeld: record the oldest held token
	relHeld bool
	wantErr error // expected Allow error (nil: admitted)
	wantRA  time.Duration
}

func call(o Outcome) step                       { return step{call: true, outcome: o} }
func rejected(err error, ra time.Duration) step { return step{call: true, wantErr: err, wantRA: ra} }
func advance(d time.Duration) step              { return step{advance: d} }
func hold() step                                { return step{hold: true} }
func releaseHeld(o Outcome) step                { return step{relHeld: true, release: o} }

func repeat(n int, s step) []step {
	out := make([]step, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func seq(parts ...any) []step {
	var out []step
	for _, p := range parts {
		switch v := p.(type) {
		case step:
			out = append(out, v)
		case []step:
			out = append(out, v...)
		}
	}
	return out
}

// TestStateMachine covers every row of the specification's state diagram
// and configuration table.
func TestStateMachine(t *testing.T) {
	small := Config{FailureThreshold: 3, SuccessThreshold: 2, ResetTimeout: 10 * time.Second, HalfOpenMaxProbes: 1}
	tests := []struct {
		name  string
		cfg   Config
		steps []step
		want  Metrics
	}{
		{"closed stays closed on success", small, repeat(4, call(Success)),
			Metrics{State: Closed, Generation: 1, TotalRequests: 4, TotalSuccesses: 4, ConsecutiveSuccesses: 4}},
		{"closed stays closed on a non-countable error", small, seq(call(Failure), call(Failure), repeat(5, call(Ignored))),
			Metrics{State: Closed, Generation: 1, TotalRequests: 7, TotalFailures: 2, TotalIgnored: 5,
				ConsecutiveFailures: 2, LastFailureTime: t0}},
		{"failures below the threshold keep it closed", small, repeat(2, call(Failure)),
			Metrics{State: Closed, Generation: 1, TotalRequests: 2, TotalFailures: 2, ConsecutiveFailures: 2, LastFailureTime: t0}},
		{"a success ends the failure run", small, seq(call(Failure), call(Failure), call(Success), call(Failure), call(Failure)),
			Metrics{State: Closed, Generation: 1, TotalRequests: 5, TotalSuccesses: 1, TotalFailures: 4,
				ConsecutiveFailures: 2, LastFailureTime: t0}},
		{"consecutive failures at the threshold open it", small, repeat(3, call(Failure)),
			Metrics{State: Open, Generation: 2, TotalRequests: 3, TotalFailures: 3, ConsecutiveFailures: 3, LastFailureTime: t0}},
		{"open rejects with the remaining time", small, seq(repeat(3, call(Failure)), advance(4*time.Second),
			rejected(ErrOpen, 6*time.Second), rejected(ErrOpen, 6*time.Second)),
			Metrics{State: Open, Generation: 2, TotalRequests: 3, TotalRejections: 2, TotalFailures: 3,
				ConsecutiveFailures: 3, LastFailureTime: t0}},
		{"open turns half-open once the reset timeout elapsed", small, seq(repeat(3, call(Failure)), advance(10*time.Second), hold()),
			Metrics{State: HalfOpen, Generation: 3, TotalRequests: 4, TotalFailures: 3, ProbesInFlight: 1, LastFailureTime: t0}},
		{"half-open closes after SuccessThreshold successes", small, seq(repeat(3, call(Failure)), advance(10*time.Second),
			call(Success), call(Success)),
			Metrics{State: Closed, Generation: 4, TotalRequests: 5, TotalSuccesses: 2, TotalFailures: 3, LastFailureTime: t0}},
		{"half-open stays half-open below SuccessThreshold", small, seq(repeat(3, call(Failure)), advance(10*time.Second),
			call(Success)),
			Metrics{State: HalfOpen, Generation: 3, TotalRequests: 4, TotalSuccesses: 1, TotalFailures: 3,
				ConsecutiveSuccesses: 1, LastFailureTime: t0}},
		{"half-open re-opens on any countable failure", small, seq(repeat(3, call(Failure)), advance(10*time.Second),
			call(Success), advance(time.Second), call(Failure), rejected(ErrOpen, 10*time.Second)),
			Metrics{State: Open, Generation: 4, TotalRequests: 5, TotalRejections: 1, TotalSuccesses: 1, TotalFailures: 4,
				ConsecutiveFailures: 1, LastFailureTime: t0.Add(11 * time.Second)}},
		{"half-open ignores a non-countable error", small, seq(repeat(3, call(Failure)), advance(10*time.Second),
			call(Success), call(Ignored), call(Success)),
			Metrics{State: Closed, Generation: 4, TotalRequests: 6, TotalSuccesses: 2, TotalFailures: 3, TotalIgnored: 1,
				LastFailureTime: t0}},
		{"half-open admits at most HalfOpenMaxProbes", small, seq(repeat(3, call(Failure)), advance(10*time.Second),
			hold(), rejected(ErrProbeLimit, 0), releaseHeld(Ignored), hold()),
			Metrics{State: HalfOpen, Generation: 3, TotalRequests: 5, TotalRejections: 1, TotalFailures: 3, TotalIgnored: 1,
				ProbesInFlight: 1, LastFailureTime: t0}},
		{"several probes with HalfOpenMaxProbes 2", Config{FailureThreshold: 1, HalfOpenMaxProbes: 2, ResetTimeout: time.Second},
			seq(call(Failure), advance(time.Second), hold(), hold(), rejected(ErrProbeLimit, 0)),
			Metrics{State: HalfOpen, Generation: 3, TotalRequests: 3, TotalRejections: 1, TotalFailures: 1,
				ProbesInFlight: 2, LastFailureTime: t0}},
		{"default FailureThreshold is 5", Config{}, seq(repeat(4, call(Failure)), call(Failure)),
			Metrics{State: Open, Generation: 2, TotalRequests: 5, TotalFailures: 5, ConsecutiveFailures: 5, LastFailureTime: t0}},
		{"default ResetTimeout is 30s", Config{FailureThreshold: 1}, seq(call(Failure), advance(30*time.Second-1),
			rejected(ErrOpen, 1), advance(1), hold()),
			Metrics{State: HalfOpen, Generation: 3, TotalRequests: 2, TotalRejections: 1, TotalFailures: 1,
				ProbesInFlight: 1, LastFailureTime: t0}},
		{"default SuccessThreshold 2 and HalfOpenMaxProbes 1", Config{FailureThreshold: 1}, seq(call(Failure), advance(30*time.Second),
			hold(), rejected(ErrProbeLimit, 0), releaseHeld(Success), call(Success)),
			Metrics{State: Closed, Generation: 4, TotalRequests: 3, TotalRejections: 1, TotalSuccesses: 2, TotalFailures: 1,
				LastFailureTime: t0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clock.NewFake(t0)
			b, err := New(tt.cfg, WithClock(clk))
			if err != nil {
				t.Fatal(err)
			}
			var held []Token
			for i, s := range tt.steps {
				switch {
				case s.advance != 0:
					clk.Advance(s.advance)
				case s.relHeld:
					b.Record(held[0], s.release)
					held = held[1:]
				default:
					tok, err := b.Allow()
					checkAllow(t, i, err, s.wantErr, s.wantRA)
					if err != nil {
						continue
					}
					if s.hold {
						held = append(held, tok)
					} else if !b.Record(tok, s.outcome) {
						t.Fatalf("step %d: fresh token counted as stale", i)
					}
				}
			}
			if diff := cmp.Diff(tt.want, b.Metrics()); diff != "" {
				t.Errorf("metrics (-want +got):\n%s", diff)
			}
		})
	}
}

func checkAllow(t *testing.T, i int, err, want error, wantRA time.Duration) {
	t.Helper()
	if want == nil {
		if err != nil {
			t.Fatalf("step %d: Allow = %v, want admitted", i, err)
		}
		return
	}
	var re *RejectError
	if !errors.Is(err, want) || !errors.As(err, &re) {
		t.Fatalf("step %d: Allow = %v, want %v", i, err, want)
	}
	if re.RetryAfter != wantRA {
		t.Fatalf("step %d: RetryAfter = %v, want %v", i, re.RetryAfter, wantRA)
	}
}

func TestStaleOutcomes(t *testing.T) {
	clk := clock.NewFake(t0)
	b, _ := New(Config{FailureThreshold: 2, ResetTimeout: time.Second}, WithClock(clk))

	slow, _ := b.Allow() // admitted while closed, generation 1
	for range 2 {
		tok, _ := b.Allow()
		b.Record(tok, Failure)
	}
	if b.State() != Open {
		t.Fatalf("state = %v, want open", b.State())
	}
	// The slow call's success must not touch the open breaker.
	if b.Record(slow, Success) {
		t.Error("outcome of generation 1 applied to generation 2")
	}
	clk.Advance(time.Second)
	p1, _ := b.Allow() // probe, generation 3
	b.Record(p1, Failure)
	// A late probe outcome from generation 3 after the breaker re-opened.
	if b.Record(p1, Success) {
		t.Error("second record of the same token applied")
	}
	if b.Record(Token{}, Failure) {
		t.Error("zero token applied")
	}
	got := b.Metrics()
	want := Metrics{State: Open, Generation: 4, TotalRequests: 4, TotalFailures: 3, ConsecutiveFailures: 1,
		StaleOutcomes: 3, LastFailureTime: t0.Add(time.Second)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("metrics (-want +got):\n%s", diff)
	}
}

func TestStaleProbeDoesNotFreeNewSlot(t *testing.T) {
	clk := clock.NewFake(t0)
	b, _ := New(Config{FailureThreshold: 1, SuccessThreshold: 1, HalfOpenMaxProbes: 2, ResetTimeout: time.Second}, WithClock(clk))
	tok, _ := b.Allow()
	b.Record(tok, Failure)
	clk.Advance(time.Second)
	a, _ := b.Allow()
	late, _ := b.Allow()
	b.Record(a, Success) // closes, generation 4
	if b.State() != Closed {
		t.Fatalf("state = %v, want closed", b.State())
	}
	if b.Record(late, Success) || b.InFlightProbes() != 0 {
		t.Errorf("late probe applied to the closed epoch (probes %d)", b.InFlightProbes())
	}
}

func TestOnStateChange(t *testing.T) {
	clk := clock.NewFake(t0)
	var got []Transition
	var b *Breaker
	b, _ = New(Config{FailureThreshold: 1, SuccessThreshold: 1, ResetTimeout: time.Second},
		WithClock(clk), WithKey("k"), WithOnStateChange(func(tr Transition) {
			_ = b.State() // the lock is released: calling back must not deadlock
			got = append(got, tr)
		}))
	tok, _ := b.Allow()
	b.Record(tok, Failure)
	clk.Advance(2 * time.Second)
	tok, _ = b.Allow()
	b.Record(tok, Success)
	want := []Transition{
		{Key: "k", From: Closed, To: Open, Generation: 2, At: t0},
		{Key: "k", From: Open, To: HalfOpen, Generation: 3, At: t0.Add(2 * time.Second)},
		{Key: "k", From: HalfOpen, To: Closed, Generation: 4, At: t0.Add(2 * time.Second)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("transitions (-want +got):\n%s", diff)
	}
}

func TestStateIsSideEffectFree(t *testing.T) {
	clk := clock.NewFake(t0)
	calls := 0
	b, _ := New(Config{FailureThreshold: 1, ResetTimeout: time.Second}, WithClock(clk),
		WithOnStateChange(func(Transition) { calls++ }))
	tok, _ := b.Allow()
	b.Record(tok, Failure)
	if ra := b.RetryAfter(); ra != time.Second {
		t.Errorf("RetryAfter = %v, want 1s", ra)
	}
	clk.Advance(time.Second)
	if s, g, ra := b.State(), b.Generation(), b.RetryAfter(); s != HalfOpen || g != 2 || ra != 0 {
		t.Errorf("State, Generation, RetryAfter = %v, %d, %v; want half-open, 2, 0", s, g, ra)
	}
	if calls != 1 {
		t.Errorf("callbacks = %d, want 1 (reading state must not transition)", calls)
	}
}

func TestConfig(t *testing.T) {
	tests := []struct {
		name     string
		cfg      Config
		want     Config
		problems []string
	}{
		{"zero takes every default", Config{}, Config{5, 2, 30 * time.Second, 1}, nil},
		{"explicit values kept", Config{10, 3, time.Minute, 2}, Config{10, 3, time.Minute, 2}, nil},
		{"negatives all reported", Config{-1, -2, -time.Second, -3}, Config{-1, -2, -time.Second, -3}, []string{
			"failure_threshold", "success_threshold", "reset_timeout", "half_open_max_probes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.cfg.WithDefaults()); diff != "" {
				t.Errorf("WithDefaults (-want +got):\n%s", diff)
			}
			err := tt.cfg.Validate()
			var got []string
			if err != nil {
				for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
					got = append(got, fieldOf(e.Error()))
				}
			}
			if diff := cmp.Diff(tt.problems, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("problems (-want +got):\n%s\n%v", diff, err)
			}
			if _, nerr := New(tt.cfg); (nerr != nil) != (err != nil) {
				t.Errorf("New error = %v, Validate error = %v", nerr, err)
			}
		})
	}
}

// fieldOf extracts the field name from "INVALID_CONFIG: field: problem".
func fieldOf(msg string) string {
	const p = "INVALID_CONFIG: "
	msg = msg[len(p):]
	for i := range msg {
		if msg[i] == ':' {
			return msg[:i]
		}
	}
	return msg
}

func TestStrings(t *testing.T) {
	got := []string{Closed.String(), Open.String(), HalfOpen.String(), State(9).String(),
		Ignored.String(), Success.String(), Failure.String(), Outcome(9).String()}
	want := []string{"closed", "open", "half-open", "state(9)", "ignored", "success", "failure", "outcome(9)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if txt, _ := HalfOpen.MarshalText(); string(txt) != "half-open" {
		t.Errorf("MarshalText = %q", txt)
	}
	if e := (&RejectError{State: Open, RetryAfter: time.Second}); e.Error() == "" || !errors.Is(e, ErrOpen) {
		t.Errorf("open RejectError = %q", e.Error())
	}
	if e := (&RejectError{State: HalfOpen}); !errors.Is(e, ErrProbeLimit) || errors.Is(e, ErrOpen) {
		t.Errorf("half-open RejectError = %q", e.Error())
	}
}
