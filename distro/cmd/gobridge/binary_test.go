package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// orderIDs extracts payload.order_id from SSE events carrying envelopes.
func orderIDs(t *testing.T, events []string) map[float64]int {
	t.Helper()
	out := map[float64]int{}
	for _, e := range events {
		var env struct {
			Payload struct {
				OrderID *float64 `json:"order_id"`
				Total   float64  `json:"total"`
			} `json:"payload"`
		}
		if err := json.Unmarshal([]byte(e), &env); err != nil {
			t.Fatalf("event %q: %v", e, err)
		}
		if env.Payload.OrderID != nil {
			out[*env.Payload.OrderID]++
		}
	}
	return out
}

type dlqList struct {
	Entries []struct {
		ID       string `json:"id"`
		Route    string `json:"route"`
		Category string `json:"category"`
	} `json:"entries"`
}

// TestBinaryEndToEnd drives the real binary: messages through filter and
// transform to an SSE client, a DLQ entry listed and redriven after a
// reload that fixes its route, and a SIGTERM mid-stream that loses nothing.
func TestBinaryEndToEnd(t *testing.T) {
	dir := t.TempDir()
	p := newPorts(t)
	hook := newHook(t)
	cfgPath := filepath.Join(dir, "bridge.yaml")
	if err := os.WriteFile(cfgPath, []byte(testConfig(p, hook.URL+"/refuse")), 0o600); err != nil {
		t.Fatal(err)
	}
	pr, ready := startBinary(t, cfgPath, dir, p)
	t.Logf("start-up to ready: %v", ready)
	sse := subscribe(t, p)

	// 1. Through the filter and the transform.
	for i := 1; i <= 5; i++ {
		if st := post(t, p, fmt.Sprintf(`{"subject":"orders.created","payload":{"id":%d,"total":"%d.50","note":"x"}}`, i, i), nil); st != http.StatusOK && st != http.StatusAccepted {
			t.Fatalf("post %d: status %d", i, st)
		}
	}
	if st := post(t, p, `{"subject":"orders.created","payload":{"id":99}}`, map[string]string{"x-test": "true"}); st >= 300 {
		t.Fatalf("filtered post: status %d", st)
	}
	evs := sse.waitFor(t, "5 orders", func(e []string) bool { return len(orderIDs(t, e)) >= 5 })
	if diff := cmp.Diff(map[float64]int{1: 1, 2: 1, 3: 1, 4: 1, 5: 1}, orderIDs(t, evs)); diff != "" {
		t.Errorf("delivered orders (-want +got):\n%s", diff)
	}
	for _, e := range evs {
		if strings.Contains(e, "note") || !strings.Contains(e, `"total":`) || strings.Contains(e, `"total":"`) {
			t.Errorf("transform not applied: %s", e)
		}
	}

	// Metrics, labelled from the configuration.
	if m := scrape(t, p); !strings.Contains(m, `gobridge_route_messages_received_total{route="orders"}`) {
		t.Errorf("metrics lack the route's received counter:\n%.2000s", m)
	}

	// 2. A message routed to the webhook, which refuses it with a 400: a
	// permanent failure, so it lands in the DLQ.
	post(t, p, `{"subject":"orders.created","payload":{"id":7,"total":"7"}}`, map[string]string{"x-route": "hook"})
	var list dlqList
	waitAdmin(t, func() bool {
		admin(t, p, http.MethodGet, "/dlq?route=orders", nil, &list)
		return len(list.Entries) == 1
	})
	if list.Entries[0].Category != "permanent" {
		t.Errorf("DLQ category %q, want permanent", list.Entries[0].Category)
	}

	// 3. Reload with the webhook fixed (the route that uses it changes),
	// then redrive the entry with the CLI.
	if err := os.WriteFile(cfgPath, []byte(testConfig(p, hook.URL+"/accept")), 0o600); err != nil {
		t.Fatal(err)
	}
	var rel struct {
		Generation int      `json:"generation"`
		Changed    []string `json:"changed"`
	}
	if st := admin(t, p, http.MethodPost, "/reload", nil, &rel); st != http.StatusOK {
		t.Fatalf("reload: status %d %+v", st, rel)
	}
	if diff := cmp.Diff([]string{"orders"}, rel.Changed); diff != "" {
		t.Errorf("reload changed (-want +got):\n%s", diff)
	}
	out, err := exec.Command(binPath, "dlq", "-admin", fmt.Sprintf("http://127.0.0.1:%d", p.admin), "-key", testKey,
		"redrive", list.Entries[0].ID).CombinedOutput()
	if err != nil {
		t.Fatalf("gobridge dlq redrive: %v\n%s", err, out)
	}
	// The route persists the redriven message to its outbox; the drainer
	// delivers it.
	waitAdmin(t, func() bool { return len(hook.accepted()) > 0 })
	if got := hook.accepted(); len(got) != 1 || !strings.Contains(got[0], `"order_id":7`) || !strings.Contains(got[0], `"gobridge.redriven-from"`) {
		t.Errorf("webhook accepted %q, want the redriven order once, linked to its DLQ entry", got)
	}
	admin(t, p, http.MethodGet, "/dlq", nil, &list)
	if len(list.Entries) != 0 {
		t.Errorf("DLQ still holds %d entries after the redrive", len(list.Entries))
	}
	sse.cancel()
	sse = subscribe(t, p)

	// 4. SIGTERM in the middle of a burst: every accepted message arrives,
	// before the stop or after the restart.
	const burst = 300
	accepted := postBurst(t, p, 1000, burst, func(n int) {
		if n == burst/2 {
			_ = pr.cmd.Process.Signal(sigterm)
		}
	})
	pr.waitExit(t)
	sse.cancel()
	first := sse.snapshot()
	_, _ = startBinary(t, cfgPath, dir, p)
	sse2 := subscribe(t, p)
	got := orderIDs(t, first)
	sse2.waitFor(t, "every accepted message", func(e []string) bool {
		seen := orderIDs(t, e)
		for id := range got {
			seen[id]++
		}
		for _, id := range accepted {
			if seen[float64(id)] == 0 {
				return false
			}
		}
		return true
	})
	t.Logf("SIGTERM mid-burst: %d of %d posts accepted, all delivered", len(accepted), burst)
}

// postBurst posts n orders with ids from base, 8 at a time, calls after(k)
// after the k-th, and returns the ids answered with success.
func postBurst(t *testing.T, p testPorts, base, n int, after func(int)) []int {
	t.Helper()
	var (
		mu   sync.Mutex
		ok   []int
		wg   sync.WaitGroup
		next = make(chan int)
	)
	for range 8 {
		wg.Go(func() {
			for id := range next {
				if st := post(t, p, fmt.Sprintf(`{"subject":"o","payload":{"id":%d,"total":"1"}}`, id), nil); st == http.StatusOK || st == http.StatusAccepted {
					mu.Lock()
					ok = append(ok, id)
					mu.Unlock()
				}
			}
		})
	}
	for k := range n {
		next <- base + k
		after(k)
	}
	close(next)
	wg.Wait()
	return ok
}
