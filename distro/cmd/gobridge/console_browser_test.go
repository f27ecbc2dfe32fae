package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/gobridge-oss/gobridge/core/itest"
)

// screenshotDir is where the console test writes its screenshots: the
// docs' folder when GOBRIDGE_CONSOLE_SCREENSHOTS=1 (to refresh the images
// docs/console.md shows), else a temporary directory, so that an ordinary
// test run leaves the tree unchanged.
func screenshotDir(t *testing.T) string {
	if os.Getenv("GOBRIDGE_CONSOLE_SCREENSHOTS") == "1" {
		return filepath.Join("..", "..", "..", "docs", "console")
	}
	return t.TempDir()
}

// TestConsoleRepairsADeadLetterInChromium is the operator console's
// promise, kept by headless Chromium against the real binary: an operator
// signs in with the admin key, watches a message the webhook refuses
// appear in the dead-letter view without reloading the page, inspects it,
// deletes a second one, fixes the webhook's URL by uploading a corrected
// file to the reload page (after previewing the change), redrives the
// entry, and sees it delivered at the webhook and gone from the view.
// Signing in, moving between pages, confirming and redriving are done
// with the keyboard; the first Tab reaches the skip link and Escape
// closes the confirmation dialog. Every page passes the accessibility
// check, and the routes page fits a phone's width.
func TestConsoleRepairsADeadLetterInChromium(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		itest.Unavailable(t, "%s is missing; run scripts/ensure-chromium.sh", chromiumPath)
	}
	p := newPorts(t)
	hook := newHook(t)
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "bridge.yaml")
	if err := os.WriteFile(cfgPath, []byte(testConfig(p, hook.URL+"/refuse")), 0o600); err != nil {
		t.Fatal(err)
	}
	bridge, _ := startBinary(t, cfgPath, dir, p)
	shots := screenshotDir(t)

	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	browser := newBrowser(ctx, t, dir)
	// Start the browser on the test's context: a tab first used with a
	// shorter-lived context would close with it.
	if err := chromedp.Do(browser); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}

	fail := func(what string, err error) {
		t.Helper()
		dctx, dcancel := context.WithTimeout(browser, 2*time.Second)
		defer dcancel()
		page, _ := chromedp.Run(dctx, chromedp.Evaluate[string](`document.body.innerText`))
		t.Fatalf("%s: %v\npage text:\n%s\ngobridge output:\n%s", what, err, page, bridge.logs.String())
	}
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, scancel := context.WithTimeout(browser, 20*time.Second)
		defer scancel()
		if err := chromedp.Do(sctx, steps...); err != nil {
			fail(what, err)
		}
	}
	eval := func(what, js string) string {
		t.Helper()
		sctx, scancel := context.WithTimeout(browser, 10*time.Second)
		defer scancel()
		v, err := chromedp.Run(sctx, chromedp.Evaluate[string](js))
		if err != nil {
			fail(what, err)
		}
		return v
	}
	waitFor := func(what, js string) {
		t.Helper()
		sctx, scancel := context.WithTimeout(browser, 20*time.Second)
		defer scancel()
		if _, err := chromedp.Run(sctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
			fail(what, err)
		}
	}
	shot := func(name string) {
		t.Helper()
		sctx, scancel := context.WithTimeout(browser, 10*time.Second)
		defer scancel()
		png, err := chromedp.Run(sctx, chromedp.CaptureScreenshot())
		if err != nil {
			fail("screenshot "+name, err)
		}
		if err := os.WriteFile(filepath.Join(shots, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	accessible := func(page string) {
		t.Helper()
		sctx, scancel := context.WithTimeout(browser, 10*time.Second)
		defer scancel()
		problems, err := chromedp.Run(sctx, chromedp.Evaluate[[]string](a11yCheck))
		if err != nil {
			fail("accessibility check of "+page, err)
		}
		for _, p := range problems {
			t.Errorf("%s page: %s", page, p)
		}
	}
	open := func(page, ready string) {
		t.Helper()
		// By keyboard: focus the navigation link and press Enter.
		do("open the "+page+" page", chromedp.Focus(chromedp.CSS(`#nav a[data-page="`+page+`"]`)), chromedp.KeyEvent(kb.Enter),
			chromedp.WaitVisible(chromedp.CSS(ready)))
	}

	// Sign in. The keyboard reaches the skip link first.
	do("open the console", chromedp.EmulateViewport(1100, 720), chromedp.Navigate(fmt.Sprintf("http://127.0.0.1:%d/console/", p.admin)),
		chromedp.WaitVisible(chromedp.ID("login-key")))
	// The check itself catches faint text and an unnamed control.
	probe := `(() => { const d = document.createElement('div'); d.id = 'probe';
	  const p = document.createElement('p'); p.textContent = 'faint'; p.style.color = '#bbbbbb';
	  d.append(p, document.createElement('input')); document.getElementById('main').append(d);
	  const r = ` + a11yCheck + `; d.remove(); return r; })()`
	sctx, scancel := context.WithTimeout(browser, 10*time.Second)
	caught, err := chromedp.Run(sctx, chromedp.Evaluate[[]string](probe))
	scancel()
	if err != nil || len(caught) != 2 || !strings.Contains(caught[0]+caught[1], "contrast") || !strings.Contains(caught[0]+caught[1], "no accessible name: input") {
		t.Errorf("the accessibility check on a faint text and an unnamed input found %q (%v), want both", caught, err)
	}
	accessible("sign-in")
	do("press Tab", chromedp.KeyEvent(kb.Tab))
	if got := eval("focused element", `document.activeElement.className`); got != "skip" {
		t.Errorf("the first Tab focuses %q, want the skip link", got)
	}
	shot("login.png")
	do("sign in", chromedp.SendKeys(chromedp.ID("login-key"), testKey+kb.Enter),
		chromedp.WaitVisible(chromedp.CSS(`#live-state[data-state="live"]`)))
	if got := eval("where the key is", `[location.href.includes(sessionStorage.getItem('gobridge.adminKey')) ? 'url' : 'not in url', localStorage.length, document.cookie].join('|')`); got != "not in url|0|" {
		t.Errorf("key placement %q: want it in session storage only", got)
	}

	// Routes and health from the live stream.
	do("see the route", chromedp.WaitVisible(chromedp.CSS(`#routes-table tr[data-route="orders"]`)))
	accessible("routes")
	shot("routes.png")
	open("health", "#ready-state")
	waitFor("readiness full", `document.getElementById('health').innerText.includes('full')`)
	accessible("health")
	shot("health.png")

	// The dead-letter view is empty; a message the webhook refuses shows
	// up in it without a page load.
	open("dlq", "#dlq-empty")
	eval("mark the page", `window.sameDocument = 'yes'`)
	if st := post(t, p, `{"subject":"orders.created","payload":{"id":7,"total":"7"}}`, map[string]string{"x-route": "hook"}); st != http.StatusOK {
		t.Fatalf("post: status %d", st)
	}
	do("see the entry appear", chromedp.WaitVisible(chromedp.CSS(`tr.dlq-row`)))
	if got := eval("same document", `String(window.sameDocument)`); got != "yes" {
		t.Errorf("the page was reloaded to show the entry")
	}
	waitFor("DLQ depth in the view", `document.getElementById('dlq-depth').textContent.startsWith('1 entry')`)
	accessible("dead letters")
	shot("dlq.png")

	// Escape closes the purge confirmation and purges nothing.
	do("open the purge dialog", chromedp.Click(chromedp.ID("purge")))
	waitFor("dialog open", `document.getElementById('confirm').open`)
	accessible("purge dialog")
	do("press Escape", chromedp.KeyEvent(kb.Escape))
	waitFor("dialog closed", `!document.getElementById('confirm').open`)
	if n := eval("rows", `String(document.querySelectorAll('tr.dlq-row').length)`); n != "1" {
		t.Errorf("%s rows after cancelling the purge, want 1", n)
	}

	// The entry: error, headers, payload as JSON and hex.
	do("open the entry", chromedp.Click(chromedp.CSS(`a.entry-link`)), chromedp.WaitVisible(chromedp.ID("payload")))
	waitFor("JSON payload", `document.getElementById('payload').textContent.includes('"order_id": 7')`)
	if got := eval("error", `document.getElementById('entry-error').textContent`); !strings.Contains(got, "400") && !strings.Contains(strings.ToLower(got), "permanent") {
		t.Errorf("entry error %q names neither the 400 nor a permanent failure", got)
	}
	accessible("entry")
	shot("entry.png")
	do("show hex", chromedp.Click(chromedp.CSS(`button[data-view="hex"]`)))
	waitFor("hex payload", `document.getElementById('payload').textContent.startsWith('00000000  7b')`)

	// A second refused message is deleted from its entry page, after a
	// confirmation.
	do("back to the list", chromedp.Click(chromedp.CSS(`#page a[href="#/dlq"]`)), chromedp.WaitVisible(chromedp.CSS(`tr.dlq-row`)))
	if st := post(t, p, `{"subject":"orders.created","payload":{"id":8,"total":"8"}}`, map[string]string{"x-route": "hook"}); st != http.StatusOK {
		t.Fatalf("post: status %d", st)
	}
	waitFor("two rows", `document.querySelectorAll('tr.dlq-row').length === 2`)
	do("open the second entry", chromedp.Click(chromedp.CSS(`tr.dlq-row:nth-child(2) a.entry-link`)), chromedp.WaitVisible(chromedp.ID("payload")))
	waitFor("its payload", `document.getElementById('payload').textContent.includes('"order_id": 8')`)
	do("delete it", chromedp.Click(chromedp.ID("entry-delete")))
	waitFor("confirmation", `document.getElementById('confirm').open`)
	do("confirm the deletion", chromedp.Focus(chromedp.ID("confirm-ok")), chromedp.KeyEvent(kb.Enter))
	waitFor("back to one row", `location.hash === '#/dlq' && document.querySelectorAll('tr.dlq-row').length === 1`)

	// Fix the webhook's URL: preview the reload, then apply it.
	open("reload", "#reload-yaml")
	fixed := filepath.Join(dir, "fixed.yaml")
	if err := os.WriteFile(fixed, []byte(testConfig(p, hook.URL+"/accept")), 0o600); err != nil {
		t.Fatal(err)
	}
	do("upload the fixed configuration", chromedp.SetUploadFiles(chromedp.ID("reload-file"), []string{fixed}))
	waitFor("the uploaded text", `document.getElementById('reload-yaml').value.includes('/accept')`)
	do("preview", chromedp.Click(chromedp.ID("reload-preview")))
	waitFor("the plan", `document.getElementById('reload-plan').innerText.includes('senders[hook].settings.url')`)
	if got := eval("affected routes", `document.getElementById('plan-affected').textContent`); got != "orders" {
		t.Errorf("the plan names %q as using a changed part, want orders (its binding's sender changes)", got)
	}
	accessible("reload")
	eval("scroll to the plan", `document.getElementById('reload-status').scrollIntoView(); ''`)
	shot("reload.png")
	do("apply", chromedp.Click(chromedp.ID("reload-apply")))
	waitFor("confirmation", `document.getElementById('confirm').open`)
	do("confirm", chromedp.Focus(chromedp.ID("confirm-ok")), chromedp.KeyEvent(kb.Enter))
	waitFor("reloaded", `document.getElementById('reload-status').textContent.includes('Reloaded')`)

	open("config", "#config-json")
	waitFor("configuration shown", `document.getElementById('config-json').textContent.includes('/accept')`)
	if got := eval("config text", `document.getElementById('config-json').textContent`); strings.Contains(got, testKey) {
		t.Error("the configuration page shows the admin key")
	}
	accessible("config")

	// Redrive the selected entry; the webhook gets it and the view empties.
	open("dlq", "tr.dlq-row")
	do("select and redrive by keyboard", chromedp.Focus(chromedp.ID("select-all")), chromedp.KeyEvent(kb.Enter),
		chromedp.Focus(chromedp.ID("redrive-selected")), chromedp.KeyEvent(kb.Enter))
	eventually(t, "the webhook receiving the redriven order", func() bool { return len(hook.accepted()) > 0 }, bridge.logs.String)
	if got := hook.accepted(); len(got) != 1 || !strings.Contains(got[0], `"order_id":7`) {
		t.Errorf("webhook accepted %q, want the redriven order once", got)
	}
	do("see the view empty", chromedp.WaitVisible(chromedp.ID("dlq-empty")))
	waitFor("DLQ depth 0", `document.getElementById('dlq-depth').textContent.startsWith('0 entries')`)
	shot("dlq-redriven.png")

	// A phone: the routes page fits the width.
	do("phone viewport", chromedp.EmulateViewport(390, 780, chromedp.EmulateMobile, chromedp.EmulatePortrait))
	open("routes", `#routes-table tr[data-route="orders"]`)
	if got := eval("overflow", `String(document.documentElement.scrollWidth <= window.innerWidth)`); got != "true" {
		t.Errorf("the routes page is wider than a phone's screen")
	}
	accessible("routes on a phone")
	shot("routes-phone.png")

	// Signing out forgets the key.
	do("sign out", chromedp.Click(chromedp.ID("logout")), chromedp.WaitVisible(chromedp.ID("login-key")))
	if got := eval("stored key", `String(sessionStorage.getItem('gobridge.adminKey'))`); got != "null" {
		t.Errorf("after signing out the tab still holds the key")
	}
}
