package tenant

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/telemetry"
	"github.com/google/go-cmp/cmp"
)

func okNext(context.Context, *messaging.Envelope) error { return nil }

// TestQuota covers the quota enforcement rows: the ceiling applies only
// with a reader and a positive MaxInFlight, and a failed read fails open.
func TestQuota(t *testing.T) {
	type result struct {
		Code          fault.Code
		Transient     bool
		NextCalled    bool
		QuotaRejects  float64
		ReadErrors    float64
		After         Usage // acme's usage once Process returned
		WarningLogged bool
	}
	tests := []struct {
		name     string
		validate bool
		maxIn    int64
		reader   bool
		readErr  error
		preload  int
		want     result
	}{
		{"at the ceiling is refused", true, 2, true, nil, 2,
			result{fault.CodeTenantQuotaExceeded, true, false, 1, 0, Usage{InFlight: 2}, false}},
		{"above the ceiling is refused", true, 2, true, nil, 5,
			result{fault.CodeTenantQuotaExceeded, true, false, 1, 0, Usage{InFlight: 5}, false}},
		{"below the ceiling passes", true, 2, true, nil, 1,
			result{NextCalled: true, After: Usage{InFlight: 1, Processed: 1}}},
		{"increment-only tracker has no ceiling", true, 2, false, nil, 5,
			result{NextCalled: true, After: Usage{InFlight: 5, Processed: 1}}},
		{"zero ceiling is no ceiling", true, 0, true, nil, 5,
			result{NextCalled: true, After: Usage{InFlight: 5, Processed: 1}}},
		{"no validator, no ceiling", false, 0, true, nil, 5,
			result{NextCalled: true, After: Usage{InFlight: 5, Processed: 1}}},
		{"read error fails open", true, 1, true, errors.New("usage store down"), 5,
			result{NextCalled: true, ReadErrors: 1, After: Usage{InFlight: 5, Processed: 1}, WarningLogged: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mem := telemetry.NewMemory()
			var logs strings.Builder
			st := newScripted()
			st.readErr = tt.readErr
			preload(st.MemoryTracker, "acme", tt.preload)
			var tracker TenantUsageTracker = st
			if !tt.reader {
				tracker = incrementOnly{st.MemoryTracker}
			}
			opts := []Option{WithMeter(mem), WithUsageTracker(tracker), WithLogger(slog.New(slog.NewTextHandler(&logs, nil)))}
			if tt.validate {
				opts = append(opts, WithValidator(&fakeValidator{infos: map[string]TenantInfo{"acme": active("acme", 0, tt.maxIn)}}))
			}
			p, _ := New(Config{}, opts...)
			var got result
			err := p.Process(context.Background(), envWith("x-tenant-id", "acme", "{}"),
				func(context.Context, *messaging.Envelope) error { got.NextCalled = true; return nil })
			got.Code, got.Transient = fault.CodeOf(err), err != nil && fault.IsRecoverable(err)
			got.QuotaRejects = mem.Value("gobridge_tenant_rejects_total", "tenant", ReasonQuotaInFlight)
			got.ReadErrors = mem.Value("gobridge_tenant_usage_errors_total", "tenant", "read")
			got.After, _ = st.MemoryTracker.Usage(context.Background(), "acme")
			got.WarningLogged = strings.Contains(logs.String(), "level=WARN") && strings.Contains(logs.String(), "op=read")
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s\nerr: %v", diff, err)
			}
		})
	}
}

// TestReleaseOnSettlement checks the +1/-1 pairing under a settlement
// scope: the count is held until the runtime settles, then released once;
// only a terminal, error-free settlement counts as processed.
func TestReleaseOnSettlement(t *testing.T) {
	tests := []struct {
		name string
		st   ports.Settlement
		want Usage
	}{
		{"acked", ports.Settlement{Outcome: ports.SettledAcked, Terminal: true}, Usage{Processed: 1}},
		{"dead-lettered", ports.Settlement{Outcome: ports.SettledAcked, Terminal: true, Err: fault.ErrNotFound}, Usage{}},
		{"retried", ports.Settlement{Outcome: ports.SettledRetried, Err: fault.ErrTimeout}, Usage{}},
		{"unsettled", ports.Settlement{Outcome: ports.SettledUnsettled, Err: context.Canceled}, Usage{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newScripted()
			p, _ := New(Config{}, WithUsageTracker(tr))
			var scope ports.SettleScope
			ctx, cancel := context.WithCancel(ports.WithSettleScope(context.Background(), &scope))
			if err := p.Process(ctx, envWith("x-tenant-id", "acme", ""), okNext); err != nil {
				t.Fatal(err)
			}
			if u, _ := tr.Usage(ctx, "acme"); u.InFlight != 1 {
				t.Fatalf("in flight before settlement = %d, want 1", u.InFlight)
			}
			cancel() // the delivery's context ends before settlement
			scope.Fire(tt.st)
			scope.Fire(tt.st) // a second firing finds no hooks
			got, _ := tr.Usage(context.Background(), "acme")
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("usage (-want +got):\n%s", diff)
			}
			want := []ctxState{{Cancelled: false, HasDeadline: true, Within: true}}
			if diff := cmp.Diff(want, tr.releases); diff != "" {
				t.Errorf("release contexts (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReleaseWithoutScope: outside the runtime the count is released when
// Process returns, whatever next did, including a panic.
func TestReleaseWithoutScope(t *testing.T) {
	tests := []struct {
		name  string
		next  func(context.Context, *messaging.Envelope) error
		panic bool
		want  Usage
	}{
		{"success", okNext, false, Usage{Processed: 1}},
		{"error", func(context.Context, *messaging.Envelope) error { return fault.ErrTimeout }, false, Usage{}},
		{"filtered", func(context.Context, *messaging.Envelope) error { return fault.ErrMessageFiltered }, false, Usage{}},
		{"panic", func(context.Context, *messaging.Envelope) error { panic("bug") }, true, Usage{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newScripted()
			p, _ := New(Config{}, WithUsageTracker(tr))
			func() {
				defer func() {
					if r := recover(); (r != nil) != tt.panic {
						t.Errorf("recover() = %v", r)
					}
				}()
				_ = p.Process(context.Background(), envWith("x-tenant-id", 7, ""), tt.next)
			}()
			got, _ := tr.Usage(context.Background(), "7")
			if diff := cmp.Diff(tt.want, got); diff != "" || tr.decs != 1 {
				t.Errorf("usage (-want +got):\n%s; %d decrements", diff, tr.decs)
			}
		})
	}
}

func TestReleaseIsIdempotent(t *testing.T) {
	tr := newScripted()
	p, _ := New(Config{}, WithUsageTracker(tr))
	preload(tr.MemoryTracker, "acme", 2)
	r := &release{p: p, id: "acme", ctx: context.Background()}
	r.settled(ports.Settlement{Outcome: ports.SettledAcked, Terminal: true})
	r.settled(ports.Settlement{Outcome: ports.SettledAcked, Terminal: true})
	r.finish(true)
	got, _ := tr.Usage(context.Background(), "acme")
	if diff := cmp.Diff(Usage{InFlight: 1, Processed: 1}, got); diff != "" || tr.decs != 1 {
		t.Errorf("(-want +got):\n%s; %d decrements", diff, tr.decs)
	}
}

// TestTrackerErrorsFailOpen: tracker failures never fail the message; they
// are counted per operation, and a failed increment is not undone.
func TestTrackerErrorsFailOpen(t *testing.T) {
	boom := errors.New("store down")
	tests := []struct {
		name          string
		inc, dec, pro error
		want          map[string]float64
		decs          int
	}{
		{"increment", boom, nil, nil, map[string]float64{"increment": 1}, 0},
		{"decrement", nil, boom, nil, map[string]float64{"decrement": 1}, 1},
		{"processed", nil, nil, boom, map[string]float64{"processed": 1}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mem := telemetry.NewMemory()
			tr := newScripted()
			tr.incErr, tr.decErr, tr.procErr = tt.inc, tt.dec, tt.pro
			p, _ := New(Config{}, WithUsageTracker(tr), WithMeter(mem),
				WithLogger(slog.New(slog.DiscardHandler)))
			called := false
			err := p.Process(context.Background(), envWith("x-tenant-id", "acme", ""),
				func(context.Context, *messaging.Envelope) error { called = true; return nil })
			if err != nil || !called {
				t.Fatalf("Process = %v, next called %v", err, called)
			}
			got := map[string]float64{}
			for _, op := range []string{"read", "increment", "decrement", "processed"} {
				if v := mem.Value("gobridge_tenant_usage_errors_total", "tenant", op); v != 0 {
					got[op] = v
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" || tr.decs != tt.decs {
				t.Errorf("errors (-want +got):\n%s; %d decrements, want %d", diff, tr.decs, tt.decs)
			}
		})
	}
}

func TestUntenantedSkipsTracking(t *testing.T) {
	tr := newScripted()
	p, _ := New(Config{}, WithUsageTracker(tr))
	if err := p.Process(context.Background(), envWith("x-tenant-id", nil, ""), okNext); err != nil {
		t.Fatal(err)
	}
	if snap := tr.Snapshot(); len(snap) != 0 || tr.decs != 0 {
		t.Errorf("untenanted message tracked: %v", snap)
	}
}

func TestInMemoryReleaseAfterCancel(t *testing.T) {
	tr := NewMemoryTracker()
	p, _ := New(Config{}, WithUsageTracker(tr))
	var scope ports.SettleScope
	ctx, cancel := context.WithCancel(ports.WithSettleScope(context.Background(), &scope))
	_ = p.Process(ctx, envWith("x-tenant-id", "acme", ""), okNext)
	cancel()
	scope.Fire(ports.Settlement{Outcome: ports.SettledAcked, Terminal: true})
	if u, _ := tr.Usage(context.Background(), "acme"); u != (Usage{Processed: 1}) {
		t.Errorf("usage %+v", u)
	}
}
