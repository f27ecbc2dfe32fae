package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/itest"
)

// chromiumPath is where Debian's chromium package puts the browser
// (scripts/ensure-chromium.sh installs it).
const chromiumPath = "/usr/bin/chromium"

// readEvents is the script that reads the events the demo page lists,
// oldest first, each as its id, subject and payload text.
const readEvents = `[...document.querySelectorAll('#events li.event')].reverse().map(li => [...li.children].map(c => c.textContent))`

// TestQuickstartDemoPageInChromium is the README's browser promise, kept
// by a real browser: the gobridge binary runs the quickstart (on free
// ports), headless Chromium opens the SSE sender's demo page, whose
// EventSource subscribes to the orders channel from the page's own origin,
// and a message posted to the ingress shows up in the page, filtered and
// reshaped; the message the quickstart filters out does not. A page of
// another origin is still refused: the demo page needs no allow_origins.
func TestQuickstartDemoPageInChromium(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		itest.Unavailable(t, "%s is missing; run scripts/ensure-chromium.sh", chromiumPath)
	}
	p := newPorts(t)
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "quickstart.yaml")
	if err := os.WriteFile(cfgPath, []byte(quickstartOnPorts(t, p)), 0o600); err != nil {
		t.Fatal(err)
	}
	bridge, _ := startBinary(t, cfgPath, filepath.Join(dir, "data"), p)

	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	browser := newBrowser(ctx, t, dir)

	// fail reports what the page shows and the bridge logged.
	fail := func(what string, err error) {
		t.Helper()
		dctx, dcancel := context.WithTimeout(browser, 2*time.Second)
		defer dcancel()
		status, _ := chromedp.Run(dctx, chromedp.Evaluate[string](`document.getElementById('status').textContent`))
		events, _ := chromedp.Run(dctx, chromedp.Evaluate[string](`document.getElementById('events').innerText`))
		t.Fatalf("%s: %v\npage status: %q\npage events: %q\ngobridge output:\n%s", what, err, status, events, bridge.logs.String())
	}
	page := fmt.Sprintf("http://127.0.0.1:%d/?channel=orders", p.sse)
	sctx, scancel := context.WithTimeout(browser, 20*time.Second)
	defer scancel()
	if err := chromedp.Do(sctx, chromedp.Navigate(page), chromedp.WaitVisible(chromedp.CSS(`#status[data-state="open"]`))); err != nil {
		fail("open the demo page and subscribe", err)
	}

	if st := post(t, p, `{"subject":"orders.created","payload":{"id":8}}`, map[string]string{"x-test": "true"}); st != http.StatusOK {
		t.Fatalf("publish the filtered message: status %d", st)
	}
	if st := post(t, p, `{"subject":"orders.created","payload":{"id":7,"total":"19.90","note":"gift"}}`, nil); st != http.StatusOK {
		t.Fatalf("publish: status %d", st)
	}
	rctx, rcancel := context.WithTimeout(browser, 15*time.Second)
	defer rcancel()
	if err := chromedp.Do(rctx, chromedp.WaitVisible(chromedp.CSS(`#events li.event`))); err != nil {
		fail("see the message in the page", err)
	}
	events, err := chromedp.Run(rctx, chromedp.Evaluate[[][]string](readEvents))
	if err != nil {
		fail("read the page's events", err)
	}
	want := [][]string{{"#1", "orders.created", `{"order_id":7,"total":19.9}`}}
	if diff := cmp.Diff(want, events); diff != "" {
		t.Errorf("events the page shows (-want +got):\n%s", diff)
	}

	// The page did not need the stream opened to other sites: a page of
	// another origin (another port) is still refused.
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><body><script>
const es = new EventSource('http://127.0.0.1:%d/events/orders');
es.onopen = () => { document.body.dataset.state = 'open'; };
es.onerror = () => { document.body.dataset.state = es.readyState === EventSource.CLOSED ? 'refused' : 'retrying'; };
</script>`, p.sse)
	}))
	defer other.Close()
	octx, ocancel := context.WithTimeout(browser, 15*time.Second)
	defer ocancel()
	if err := chromedp.Do(octx, chromedp.Navigate(other.URL), chromedp.WaitReady(chromedp.CSS(`body[data-state]`))); err != nil {
		fail("open a page of another origin", err)
	}
	state, err := chromedp.Run(octx, chromedp.Evaluate[string](`document.body.dataset.state`))
	if err != nil || state != "refused" {
		t.Errorf("a page of another origin subscribing: state %q (%v), want refused", state, err)
	}
}

// newBrowser starts headless Chromium with its profile under dir and
// returns a tab's context; the browser closes when t ends or ctx does.
func newBrowser(ctx context.Context, t *testing.T, dir string) context.Context {
	t.Helper()
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.UserDataDir(filepath.Join(dir, "chromium")), chromedp.Flag("disable-quic", true))...)
	t.Cleanup(cancelAlloc)
	browser, closeBrowser := chromedp.NewContext(alloc)
	t.Cleanup(closeBrowser)
	return browser
}
