package clock

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/ports"
)

var start = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// Compile-time check that the fake satisfies the port.
var _ ports.Clock = (*Fake)(nil)

// poll reports the value pending on c without blocking.
func poll(c <-chan time.Time) (time.Time, bool) {
	select {
	case v := <-c:
		return v, true
	default:
		return time.Time{}, false
	}
}

func TestFakeNowAndAdvance(t *testing.T) {
	f := NewFake(start)
	var got []time.Time
	for _, d := range []time.Duration{0, time.Second, time.Nanosecond, time.Hour} {
		f.Advance(d)
		got = append(got, f.Now())
	}
	want := []time.Time{start, start.Add(time.Second), start.Add(time.Second + 1), start.Add(time.Hour + time.Second + 1)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Now after each Advance (-want +got):\n%s", diff)
	}
}

func TestFakeTimersFireWhenDue(t *testing.T) {
	tests := []struct {
		name   string
		timers []time.Duration
		steps  []time.Duration
		// fired[i] lists, for step i, the timer indexes that fire then.
		fired [][]int
	}{
		{
			name:   "one ns before and exactly at",
			timers: []time.Duration{10 * time.Second},
			steps:  []time.Duration{10*time.Second - 1, 1, time.Hour},
			fired:  [][]int{nil, {0}, nil},
		},
		{
			name:   "several deadlines",
			timers: []time.Duration{time.Second, 3 * time.Second, 2 * time.Second, 3 * time.Second},
			steps:  []time.Duration{500 * time.Millisecond, 500 * time.Millisecond, time.Second, time.Second},
			fired:  [][]int{nil, {0}, {2}, {1, 3}},
		},
		{
			name:   "one big jump fires everything due",
			timers: []time.Duration{time.Second, time.Minute, time.Hour, 2 * time.Hour},
			steps:  []time.Duration{time.Hour},
			fired:  [][]int{{0, 1, 2}},
		},
		{
			name:   "zero advance fires nothing",
			timers: []time.Duration{time.Nanosecond},
			steps:  []time.Duration{0, 0, time.Nanosecond},
			fired:  [][]int{nil, nil, {0}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewFake(start)
			timers := make([]ports.Timer, len(tt.timers))
			for i, d := range tt.timers {
				timers[i] = f.NewTimer(d)
			}
			for s, step := range tt.steps {
				f.Advance(step)
				var fired []int
				for i, tm := range timers {
					if v, ok := poll(tm.C()); ok {
						fired = append(fired, i)
						if !v.Equal(f.Now()) {
							t.Errorf("step %d: timer %d delivered %v, want %v", s, i, v, f.Now())
						}
					}
				}
				if diff := cmp.Diff(tt.fired[s], fired); diff != "" {
					t.Errorf("step %d: fired timers (-want +got):\n%s", s, diff)
				}
			}
		})
	}
}

func TestFakeNonPositiveDurationFiresImmediately(t *testing.T) {
	for _, d := range []time.Duration{0, -time.Nanosecond, -time.Hour} {
		f := NewFake(start)
		tm := f.NewTimer(d)
		v, ok := poll(tm.C())
		if !ok || !v.Equal(start) {
			t.Errorf("NewTimer(%v): fired=%v at %v, want immediate fire at %v", d, ok, v, start)
		}
		if tm.Stop() {
			t.Errorf("NewTimer(%v): Stop after received fire = true", d)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := f.WaitForTimers(ctx, 1); !errors.Is(err, context.Canceled) {
			t.Errorf("NewTimer(%v) left a timer armed: WaitForTimers = %v", d, err)
		}
	}
}

func TestFakeStopReset(t *testing.T) {
	type step struct {
		op   string // "stop", "reset", "advance", "recv"
		d    time.Duration
		want bool // return of stop/reset; for recv whether a value was pending
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"stop armed", []step{{"stop", 0, true}, {"advance", time.Hour, false}, {"recv", 0, false}, {"stop", 0, false}}},
		{"stop after received", []step{{"advance", time.Second, false}, {"recv", 0, true}, {"stop", 0, false}}},
		{"stop after unreceived fire drops it", []step{{"advance", time.Second, false}, {"stop", 0, true}, {"recv", 0, false}}},
		{"reset armed moves deadline", []step{
			{"advance", 500 * time.Millisecond, false}, {"reset", time.Second, true},
			{"advance", 999 * time.Millisecond, false}, {"recv", 0, false},
			{"advance", time.Millisecond, false}, {"recv", 0, true},
		}},
		{"reset after received re-arms", []step{
			{"advance", time.Second, false}, {"recv", 0, true}, {"reset", time.Second, false},
			{"advance", time.Second, false}, {"recv", 0, true},
		}},
		{"reset after stop re-arms", []step{
			{"stop", 0, true}, {"reset", 2 * time.Second, false}, {"advance", 2 * time.Second, false}, {"recv", 0, true},
		}},
		{"reset after unreceived fire drops stale", []step{
			{"advance", time.Second, false}, {"reset", time.Minute, true}, {"recv", 0, false},
			{"advance", time.Minute, false}, {"recv", 0, true}, {"recv", 0, false},
		}},
		{"reset to zero fires now", []step{{"reset", 0, true}, {"recv", 0, true}, {"stop", 0, false}}},
		{"reset negative fires now", []step{{"stop", 0, true}, {"reset", -time.Second, false}, {"recv", 0, true}}},
		{"fires only once", []step{
			{"advance", time.Second, false}, {"recv", 0, true}, {"advance", time.Hour, false}, {"recv", 0, false},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewFake(start)
			tm := f.NewTimer(time.Second)
			for i, s := range tt.steps {
				var got bool
				switch s.op {
				case "stop":
					got = tm.Stop()
				case "reset":
					got = tm.Reset(s.d)
				case "advance":
					f.Advance(s.d)
					continue
				case "recv":
					_, got = poll(tm.C())
				}
				if got != s.want {
					t.Fatalf("step %d %s(%v) = %v, want %v", i, s.op, s.d, got, s.want)
				}
			}
		})
	}
}

func TestFakeWaitForTimersDrivesWaitingCode(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	f := NewFake(start)
	const workers = 4
	done := make(chan time.Time, workers)
	for i := range workers {
		go func() {
			tm := f.NewTimer(time.Duration(i+1) * time.Second)
			done <- <-tm.C()
		}()
	}
	if err := f.WaitForTimers(ctx, workers); err != nil {
		t.Fatalf("WaitForTimers: %v", err)
	}
	select {
	case v := <-done:
		t.Fatalf("a timer fired before Advance at %v", v)
	default:
	}
	f.Advance(workers * time.Second)
	var got []time.Time
	for range workers {
		select {
		case v := <-done:
			got = append(got, v)
		case <-ctx.Done():
			t.Fatalf("only %d of %d waiters woke up", len(got), workers)
		}
	}
	want := []time.Time{}
	for range workers {
		want = append(want, start.Add(workers*time.Second))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fire times (-want +got):\n%s", diff)
	}
}

func TestFakeWaitForTimersBlocksUntilN(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	f := NewFake(start)
	result := make(chan error, 1)
	go func() { result <- f.WaitForTimers(ctx, 2) }()

	f.NewTimer(time.Second)
	select {
	case err := <-result:
		t.Fatalf("WaitForTimers returned %v with only one timer armed", err)
	default:
	}
	f.NewTimer(time.Second)
	select {
	case err := <-result:
		if err != nil {
			t.Fatalf("WaitForTimers = %v, want nil", err)
		}
	case <-ctx.Done():
		t.Fatal("WaitForTimers did not return after the second timer was armed")
	}
}

func TestFakeWaitForTimersContext(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel2()

	tests := []struct {
		name  string
		setup func(f *Fake)
		ctx   context.Context
		n     int
		want  error
	}{
		{"zero needed", func(*Fake) {}, canceled, 0, nil},
		{"negative needed", func(*Fake) {}, canceled, -1, nil},
		{"already satisfied ignores ctx", func(f *Fake) { f.NewTimer(time.Second) }, canceled, 1, nil},
		{"canceled", func(f *Fake) { f.NewTimer(time.Second) }, canceled, 2, context.Canceled},
		{"deadline", func(*Fake) {}, expired, 1, context.DeadlineExceeded},
		{"stopped timers do not count", func(f *Fake) {
			f.NewTimer(time.Second)
			f.NewTimer(time.Second).Stop()
		}, canceled, 2, context.Canceled},
		{"fired timers do not count", func(f *Fake) {
			f.NewTimer(time.Second)
			f.NewTimer(time.Hour)
			f.Advance(time.Second)
		}, canceled, 2, context.Canceled},
		{"reset timer counts once", func(f *Fake) {
			tm := f.NewTimer(time.Second)
			tm.Reset(time.Minute)
			tm.Reset(time.Hour)
		}, canceled, 2, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewFake(start)
			tt.setup(f)
			if err := f.WaitForTimers(tt.ctx, tt.n); !errors.Is(err, tt.want) {
				t.Errorf("WaitForTimers = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestFakeConcurrentUse(t *testing.T) {
	f := NewFake(start)
	const n = 16
	var wg sync.WaitGroup
	fired := make(chan struct{}, n)
	for i := range n {
		wg.Go(func() {
			tm := f.NewTimer(time.Duration(i%4+1) * time.Millisecond)
			<-tm.C()
			fired <- struct{}{}
		})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := f.WaitForTimers(ctx, n); err != nil {
		t.Fatalf("WaitForTimers: %v", err)
	}
	for range 4 {
		f.Advance(time.Millisecond)
		_ = f.Now()
	}
	wg.Wait()
	if len(fired) != n {
		t.Errorf("%d of %d timers fired", len(fired), n)
	}
}
