package httpapi

import (
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// manualClock is a clock a test moves by hand.
type manualClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *manualClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// TestRotateKeys rotates the keys of a running server, with and without an
// overlap, and checks which key opens which API at each step.
func TestRotateKeys(t *testing.T) {
	const (
		admin2   = "admin-key-two-0123456789"
		monitor2 = "monitor-key-two-0123456"
		admin3   = "admin-key-three-0123456"
	)
	clock := &manualClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	s, err := New(Config{AdminAddr: "127.0.0.1:0", MonitorAddr: "127.0.0.1:0", AdminAPIKey: adminKey, MonitorAPIKey: monitorKey,
		Now: clock.Now, Logger: slog.New(slog.DiscardHandler)}, &fakeBackend{})
	if err != nil {
		t.Fatal(err)
	}
	admin, monitor := s.Handlers()
	// opens lists, per key, whether it opens the admin and the monitor API.
	opens := func(keys ...string) map[string][2]bool {
		out := map[string][2]bool{}
		for _, k := range keys {
			a := serve(t, admin, http.MethodGet, "/api/v1/admin/status", k, "").Code == http.StatusOK
			m := serve(t, monitor, http.MethodGet, "/api/v1/monitor/routes", k, "").Code == http.StatusOK
			out[k] = [2]bool{a, m}
		}
		return out
	}
	check := func(step string, want map[string][2]bool) {
		t.Helper()
		keys := make([]string, 0, len(want))
		for k := range want {
			keys = append(keys, k)
		}
		if diff := cmp.Diff(want, opens(keys...)); diff != "" {
			t.Errorf("%s: keys opening [admin monitor] (-want +got):\n%s", step, diff)
		}
	}
	yes, monOnly, no := [2]bool{true, true}, [2]bool{false, true}, [2]bool{false, false}

	check("at start", map[string][2]bool{adminKey: yes, monitorKey: monOnly, admin2: no})

	if err := s.RotateKeys(admin2, monitor2, 0); err != nil {
		t.Fatal(err)
	}
	check("rotated without overlap", map[string][2]bool{adminKey: no, monitorKey: no, admin2: yes, monitor2: monOnly})

	if err := s.RotateKeys(admin3, monitor2, time.Hour); err != nil {
		t.Fatal(err)
	}
	check("rotated with an hour's overlap", map[string][2]bool{admin2: yes, admin3: yes, monitor2: monOnly})

	clock.advance(30 * time.Minute)
	if err := s.RotateKeys(admin3, monitor2, 10*time.Hour); err != nil {
		t.Fatal(err)
	}
	check("same keys again: the overlap is not extended", map[string][2]bool{admin2: yes, admin3: yes})
	clock.advance(30 * time.Minute)
	check("overlap over", map[string][2]bool{admin2: no, admin3: yes, monitor2: monOnly})

	for _, bad := range []struct {
		admin, monitor string
		overlap        time.Duration
	}{{"", "", 0}, {"short", "", 0}, {admin2, "short", 0}, {admin2, "", -time.Second}} {
		if err := s.RotateKeys(bad.admin, bad.monitor, bad.overlap); fault.CodeOf(err) != fault.CodeInvalidConfig {
			t.Errorf("RotateKeys(%q, %q, %v) = %v, want INVALID_CONFIG", bad.admin, bad.monitor, bad.overlap, err)
		}
	}
	check("refused rotations change nothing", map[string][2]bool{admin3: yes, admin2: no, monitor2: monOnly})

	src, err := New(Config{AdminAddr: "127.0.0.1:0", KeySource: func() (string, string) { return adminKey, "" }}, &fakeBackend{})
	if err != nil {
		t.Fatal(err)
	}
	if err := src.RotateKeys(admin2, "", 0); err == nil {
		t.Error("RotateKeys on a server with a KeySource succeeded")
	}
}
