package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gobridge-oss/gobridge/core/itest"
)

// TestBinarySIGHUPAddsARoute rewrites the file with a second receiver and
// route, sends SIGHUP, and checks the new route runs and takes messages
// while the first keeps running; a broken file sent next is refused and
// changes nothing.
func TestBinarySIGHUPAddsARoute(t *testing.T) {
	dir := t.TempDir()
	p := newPorts(t)
	extra := itest.FreePort(t)
	cfgPath := filepath.Join(dir, "bridge.yaml")
	base := testConfig(p, "http://127.0.0.1:1/hook")
	if err := os.WriteFile(cfgPath, []byte(base), 0o600); err != nil {
		t.Fatal(err)
	}
	pr, _ := startBinary(t, cfgPath, dir, p)

	added := strings.Replace(base, "senders:", fmt.Sprintf(`  - id: http-two
    type: http
    settings: {listen: "127.0.0.1:%d", paths: [/publish]}
senders:`, extra), 1)
	added = strings.Replace(added, "stores:", `  - id: second
    receiver_id: http-two
    bindings: [to-browsers]
    policy: {on_expired: drop, on_permanent_failure: drop}
stores:`, 1)
	if err := os.WriteFile(cfgPath, []byte(added), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := pr.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	routeStates := func() map[string]string {
		var rs struct {
			Routes []struct{ ID, State string } `json:"routes"`
		}
		admin(t, p, http.MethodGet, "/routes", nil, &rs)
		out := map[string]string{}
		for _, r := range rs.Routes {
			out[r.ID] = r.State
		}
		return out
	}
	waitAdmin(t, func() bool {
		st := routeStates()
		return st["second"] == "running" && st["orders"] == "running"
	})
	sse := subscribe(t, p)
	second := testPorts{ingress: extra}
	if st := post(t, second, `{"subject":"s","payload":{"id":42}}`, nil); st != http.StatusOK {
		t.Fatalf("post to the added route: status %d", st)
	}
	sse.waitFor(t, "the message through the added route", func(e []string) bool {
		for _, x := range e {
			if strings.Contains(x, `"id":42`) {
				return true
			}
		}
		return false
	})

	// A broken file is refused; both routes keep running.
	if err := os.WriteFile(cfgPath, []byte(strings.Replace(added, "max_interval: 200ms", "max_interval: soon", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	var res struct {
		Error struct {
			Problems []struct{ Path, Message string } `json:"problems"`
		} `json:"error"`
	}
	if st := admin(t, p, http.MethodPost, "/reload", nil, &res); st != http.StatusBadRequest {
		t.Errorf("broken reload: status %d, want 400", st)
	}
	if ps := res.Error.Problems; len(ps) == 0 || !strings.Contains(ps[0].Path, "max_interval") {
		t.Errorf("broken reload problems = %+v, want routes[0].policy.backoff.max_interval", ps)
	}
	if st := routeStates(); st["second"] != "running" || st["orders"] != "running" {
		t.Errorf("routes after a refused reload: %v", st)
	}
}
