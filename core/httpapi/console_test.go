package httpapi

import (
	"net/http"
	"strings"
	"testing"
)

func TestConsoleServesAssetsWithoutAKey(t *testing.T) {
	s := newTestServer(t, &fakeBackend{})
	admin, monitor := s.Handlers()
	for _, tt := range []struct {
		path, wantType, wantText string
	}{
		{"/console/", "text/html", `<script type="module" src="js/app.js">`},
		{"/console/style.css", "text/css", "--focus"},
		{"/console/js/app.js", "text/javascript", "hashchange"},
		{"/console/js/api.js", "text/javascript", "sessionStorage"},
	} {
		t.Run(tt.path, func(t *testing.T) {
			rec := serve(t, admin, http.MethodGet, tt.path, "", "")
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d, want 200: %s", rec.Code, rec.Body)
			}
			if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, tt.wantType) {
				t.Errorf("Content-Type %q, want %s", ct, tt.wantType)
			}
			if !strings.Contains(rec.Body.String(), tt.wantText) {
				t.Errorf("body lacks %q", tt.wantText)
			}
			for h, want := range map[string]string{
				"X-Content-Type-Options": "nosniff",
				"Referrer-Policy":        "no-referrer",
				"X-Frame-Options":        "DENY",
			} {
				if got := rec.Header().Get(h); got != want {
					t.Errorf("%s = %q, want %q", h, got, want)
				}
			}
			csp := rec.Header().Get("Content-Security-Policy")
			for _, d := range []string{"default-src 'self'", "script-src 'self'", "frame-ancestors 'none'"} {
				if !strings.Contains(csp, d) {
					t.Errorf("CSP %q lacks %q", csp, d)
				}
			}
			if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
				t.Errorf("CSP %q allows inline or eval'd script", csp)
			}
		})
	}
	// The console belongs to the admin listener only.
	if rec := serve(t, monitor, http.MethodGet, "/console/", "", ""); rec.Code != http.StatusNotFound {
		t.Errorf("monitor /console/: status %d, want 404", rec.Code)
	}
}

func TestConsoleRefusals(t *testing.T) {
	s := newTestServer(t, &fakeBackend{})
	admin, _ := s.Handlers()
	for _, tt := range []struct {
		method, path string
		want         int
	}{
		{http.MethodGet, "/console", http.StatusMovedPermanently},
		{http.MethodGet, "/console/missing.js", http.StatusNotFound},
		{http.MethodGet, "/console/js/", http.StatusNotFound},
		{http.MethodGet, "/console/../api/v1/admin/status", http.StatusNotFound},
		{http.MethodPost, "/console/", http.StatusMethodNotAllowed},
		// The API behind the console still needs the key.
		{http.MethodGet, "/api/v1/admin/status", http.StatusUnauthorized},
	} {
		if rec := serve(t, admin, tt.method, tt.path, "", ""); rec.Code != tt.want {
			t.Errorf("%s %s: status %d, want %d", tt.method, tt.path, rec.Code, tt.want)
		}
	}
}

// TestConsoleAssetsKeepTheKeyOutOfURLs reads the shipped scripts: the key
// goes into the Authorization header and sessionStorage only, never into
// localStorage, a cookie or a query string, and no script is inline.
func TestConsoleAssetsKeepTheKeyOutOfURLs(t *testing.T) {
	s := newTestServer(t, &fakeBackend{})
	admin, _ := s.Handlers()
	page := serve(t, admin, http.MethodGet, "/console/", "", "").Body.String()
	if strings.Contains(page, "<script>") || strings.Contains(page, " onclick=") {
		t.Error("the page has inline script, which the CSP forbids")
	}
	var all strings.Builder
	for _, f := range []string{"app.js", "api.js", "dlq.js", "config.js", "pages.js", "ui.js"} {
		rec := serve(t, admin, http.MethodGet, "/console/js/"+f, "", "")
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: status %d", f, rec.Code)
		}
		all.WriteString(rec.Body.String())
	}
	js := all.String()
	for _, banned := range []string{"localStorage", "document.cookie", "?key=", "&key=", "EventSource(", "eval("} {
		if strings.Contains(js, banned) {
			t.Errorf("console scripts use %q", banned)
		}
	}
	if !strings.Contains(js, "'Authorization'") || !strings.Contains(js, "sessionStorage") {
		t.Error("console scripts do not send the key in the Authorization header from sessionStorage")
	}
}
