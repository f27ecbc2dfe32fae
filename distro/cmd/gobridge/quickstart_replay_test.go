package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobridge-oss/gobridge/examples"
)

// quickstartOnPorts is the embedded quickstart with the test's ports and
// admin key in place of the fixed ones.
func quickstartOnPorts(t *testing.T, p testPorts) string {
	t.Helper()
	cfg := string(examples.Quickstart)
	for old, new := range map[string]string{
		"127.0.0.1:8080":                 fmt.Sprintf("127.0.0.1:%d", p.ingress),
		"127.0.0.1:8090":                 fmt.Sprintf("127.0.0.1:%d", p.sse),
		"127.0.0.1:8081":                 fmt.Sprintf("127.0.0.1:%d", p.admin),
		"127.0.0.1:8082":                 fmt.Sprintf("127.0.0.1:%d", p.monitor),
		"quickstart-admin-key-change-me": testKey,
	} {
		if !strings.Contains(cfg, old) {
			t.Fatalf("the quickstart no longer contains %q", old)
		}
		cfg = strings.ReplaceAll(cfg, old, new)
	}
	return cfg
}

// TestQuickstartMessagePublishedBeforeARestartReachesAPlainSubscriber
// is the newcomer's try of the quickstart's promise: publish with nobody
// subscribed, wait until the SSE sender took the message from the outbox
// (so only the replay log holds it), stop the bridge, start it again and
// subscribe without Last-Event-ID, as `curl -N` does. The message
// arrives, with the id it got before the restart.
func TestQuickstartMessagePublishedBeforeARestartReachesAPlainSubscriber(t *testing.T) {
	p := newPorts(t)
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "quickstart.yaml")
	if err := os.WriteFile(cfgPath, []byte(quickstartOnPorts(t, p)), 0o600); err != nil {
		t.Fatal(err)
	}
	dataDir := filepath.Join(dir, "data")

	first, _ := startBinary(t, cfgPath, dataDir, p)
	if st := post(t, p, `{"subject":"orders.created","payload":{"id":7,"total":"19.90","note":"gift"}}`, nil); st != http.StatusOK {
		t.Fatalf("publish: status %d", st)
	}
	eventually(t, "the SSE sender to take the message from the outbox", func() bool {
		return strings.Contains(scrape(t, p), `gobridge_sse_log_appended_total{sender="sse-out"} 1`)
	}, func() string { return first.logs.String() })
	first.stop(t)

	startBinary(t, cfgPath, dataDir, p)
	evs := subscribeTo(t, p, "orders").waitFor(t, "the message published before the restart",
		func(e []string) bool { return len(e) > 0 })
	if !strings.Contains(evs[0], `"order_id":7`) || !strings.Contains(evs[0], `"total":19.9`) {
		t.Errorf("first event after the restart: %s", evs[0])
	}
}
