package sbio

import (
	"context"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/gobridge-oss/gobridge/core/itest"
	"github.com/gobridge-oss/gobridge/tools/bench"
	"github.com/gobridge-oss/gobridge/transports/servicebus/sbemu"
)

// startForTest starts an emulator with the queues, or skips the test when
// the emulator cannot run here (fails it under GOBRIDGE_REQUIRE_IT).
func startForTest(t *testing.T, queues ...string) *Emulator {
	t.Helper()
	if !sbemu.Available() {
		itest.Unavailable(t, "Service Bus emulator: %s cannot import proton", sbemu.Python)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	e, err := Start(ctx, queues...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e
}

func TestStartFindsTheEmulatorProcess(t *testing.T) {
	e := startForTest(t, "q")
	cl, err := os.ReadFile("/proc/" + strconv.Itoa(e.PID()) + "/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(cl), "sbemu.py") {
		t.Errorf("PID %d runs %q, not the emulator", e.PID(), cl)
	}
	if _, err := bench.ProcCPU(e.PID()); err != nil {
		t.Errorf("CPU of the emulator: %v", err)
	}
}

func TestPublishThenSinkCountsEveryMessageOnce(t *testing.T) {
	tests := []struct {
		name string
		load Load
	}{
		{"defaults", Load{N: 300, Size: 64}},
		{"small batches, one publisher", Load{N: 120, Size: 1000, Batch: 7, Publishers: 1}},
		{"paced", Load{N: 50, Size: 24, Rate: 500}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := startForTest(t, "q")
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			l := tt.load
			l.Run = rand.Uint64()
			if err := Publish(ctx, e.ConnectionString(), "q", l); err != nil {
				t.Fatal(err)
			}
			c := bench.NewCounter(l.Run, l.N)
			s, err := StartSink(e.ConnectionString(), "q", c)
			if err != nil {
				t.Fatal(err)
			}
			select {
			case <-c.Done():
			case <-ctx.Done():
				t.Errorf("sink has %d of %d", c.Unique(), l.N)
			}
			if err := s.Stop(); err != nil {
				t.Error(err)
			}
			got := c.Tally()
			want := bench.Tally{N: l.N, Unique: l.N}
			if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(bench.Tally{}, "First", "Last", "P50", "P99")); diff != "" {
				t.Errorf("tally (-want +got):\n%s", diff)
			}
			if w, ok := s.FirstWire(); !ok || !w.MessageID {
				t.Errorf("first wire = %+v, %v; want one with the SDK's message id", w, ok)
			}
		})
	}
}

func TestCommAndParent(t *testing.T) {
	tests := []struct {
		stat, comm, ppid string
		err              bool
	}{
		{stat: "123 (python3) S 77 123 123 0", comm: "python3", ppid: "77"},
		{stat: "9 (a (b) c) R 1 9 9", comm: "a (b) c", ppid: "1"},
		{stat: "9 python3 S 1", err: true},
		{stat: "9 (x) S", err: true},
	}
	for _, tt := range tests {
		comm, ppid, err := commAndParent(tt.stat)
		if (err != nil) != tt.err || comm != tt.comm || ppid != tt.ppid {
			t.Errorf("commAndParent(%q) = %q, %q, %v; want %q, %q, error %v", tt.stat, comm, ppid, err, tt.comm, tt.ppid, tt.err)
		}
	}
}
