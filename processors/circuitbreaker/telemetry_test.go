package circuitbreaker

import (
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/telemetry"
	"github.com/google/go-cmp/cmp"
)

// TestMetricKeyCardinality checks that the first N keys are labelled
// verbatim and the rest share "other", while callbacks and logs still get
// the raw key.
func TestMetricKeyCardinality(t *testing.T) {
	mem := telemetry.NewMemory()
	var mu sync.Mutex
	var changes []string
	var logs strings.Builder
	p, clk := newProc(t, Config{Name: "cb", FailureThreshold: 1, ResetTimeout: time.Second, Key: KeySubject},
		WithMeter(mem), WithMetricKeyCardinality(2),
		WithLogger(slog.New(slog.NewTextHandler(&logs, nil))),
		WithOnStateChange(func(key string, from, to State) {
			mu.Lock()
			changes = append(changes, key+":"+from.String()+">"+to.String())
			mu.Unlock()
		}))
	for _, k := range []string{"a", "b", "c", "d"} {
		_ = run(p, k, failWith(fault.ErrUnavailable))
		_ = run(p, k, ok) // refused
	}
	clk.Advance(time.Second)
	_ = run(p, "c", ok)
	_ = run(p, "c", ok)

	type row struct {
		Trips, Rejections, ClosedOpen, HalfOpenClosed float64
	}
	get := func(label string) row {
		return row{
			mem.Value("gobridge_circuitbreaker_trips_total", "cb", label),
			mem.Value("gobridge_circuitbreaker_rejections_total", "cb", label),
			mem.Value("gobridge_circuitbreaker_state_changes_total", "cb", label, "closed", "open"),
			mem.Value("gobridge_circuitbreaker_state_changes_total", "cb", label, "half-open", "closed"),
		}
	}
	got := map[string]row{"a": get("a"), "b": get("b"), "other": get("other"), "c": get("c")}
	want := map[string]row{
		"a":     {1, 1, 1, 0},
		"b":     {1, 1, 1, 0},
		"other": {2, 2, 2, 1},
		"c":     {},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("counters (-want +got):\n%s", diff)
	}
	wantChanges := []string{"a:closed>open", "b:closed>open", "c:closed>open", "d:closed>open",
		"c:open>half-open", "c:half-open>closed"}
	if diff := cmp.Diff(wantChanges, changes); diff != "" {
		t.Errorf("callbacks (-want +got):\n%s", diff)
	}
	if !strings.Contains(logs.String(), "key=d") || !strings.Contains(logs.String(), "level=WARN") {
		t.Errorf("log lack the raw key or the warning on open:\n%s", logs.String())
	}
}

func TestMetricKeyCardinalityDefault(t *testing.T) {
	mem := telemetry.NewMemory()
	p, _ := newProc(t, Config{Name: "cb", FailureThreshold: 1, Key: KeySubject}, WithMeter(mem),
		WithMetricKeyCardinality(0))
	for i := range DefaultMetricKeyCardinality + 3 {
		_ = run(p, string(rune('A'+i%26))+strings.Repeat("x", i), failWith(fault.ErrUnavailable))
	}
	if got := mem.Value("gobridge_circuitbreaker_trips_total", "cb", "other"); got != 3 {
		t.Errorf("trips labelled other = %v, want 3", got)
	}
}
