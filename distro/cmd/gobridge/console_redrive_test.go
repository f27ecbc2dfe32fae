package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobridge-oss/gobridge/core/itest"
)

// TestBinaryRedriveToAnotherRoute redrives a dead letter through a route
// other than the one that dead-lettered it, as the console's "Redrive to"
// does: the entry of the route whose webhook refuses goes through a rescue
// route whose webhook accepts, arrives there once, and leaves the DLQ. A
// route that does not exist is refused and keeps the entry.
func TestBinaryRedriveToAnotherRoute(t *testing.T) {
	dir := t.TempDir()
	p := newPorts(t)
	hook := newHook(t)
	rescueIn := itest.FreePort(t)
	cfg := testConfig(p, hook.URL+"/refuse")
	cfg = strings.Replace(cfg, "senders:", fmt.Sprintf(`  - id: http-two
    type: http
    settings: {listen: "127.0.0.1:%d", paths: [/publish]}
senders:`, rescueIn), 1)
	cfg = strings.Replace(cfg, "bindings:", fmt.Sprintf(`  - id: hook-ok
    type: webhook
    settings: {url: "%s/accept"}
bindings:
  - {id: to-hook-ok, sender_id: hook-ok}`, hook.URL), 1)
	cfg = strings.Replace(cfg, "stores:", `  - id: rescue
    receiver_id: http-two
    bindings: [to-hook-ok]
stores:`, 1)
	cfgPath := filepath.Join(dir, "bridge.yaml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	startBinary(t, cfgPath, dir, p)

	if st := post(t, p, `{"subject":"orders.created","payload":{"id":7,"total":"7"}}`, map[string]string{"x-route": "hook"}); st != http.StatusOK {
		t.Fatalf("post: status %d", st)
	}
	var list dlqList
	waitAdmin(t, func() bool {
		admin(t, p, http.MethodGet, "/dlq?route=orders", nil, &list)
		return len(list.Entries) == 1
	})
	id := list.Entries[0].ID

	var refused struct {
		Error struct{ Code string } `json:"error"`
	}
	if st := admin(t, p, http.MethodPost, "/dlq/"+id+"/redrive", []byte(`{"to_route":"nowhere"}`), &refused); st != http.StatusNotFound || refused.Error.Code != "NOT_FOUND" {
		t.Errorf("redrive to a route that does not exist: %d %+v, want 404 NOT_FOUND", st, refused)
	}

	var res struct {
		ID    string `json:"id"`
		NewID string `json:"new_id"`
	}
	if st := admin(t, p, http.MethodPost, "/dlq/"+id+"/redrive", []byte(`{"to_route":"rescue"}`), &res); st != http.StatusOK || res.NewID == "" {
		t.Fatalf("redrive to the rescue route: %d %+v", st, res)
	}
	waitAdmin(t, func() bool { return len(hook.accepted()) > 0 })
	if got := hook.accepted(); len(got) != 1 || !strings.Contains(got[0], `"order_id":7`) {
		t.Errorf("webhook accepted %q, want the order once", got)
	}
	admin(t, p, http.MethodGet, "/dlq", nil, &list)
	if len(list.Entries) != 0 {
		t.Errorf("DLQ holds %+v after the redrive, want nothing", list.Entries)
	}
}
