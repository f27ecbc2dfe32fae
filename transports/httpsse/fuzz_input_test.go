package httpsse

import (
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// FuzzLastEventID feeds arbitrary Last-Event-ID headers and
// last_event_id parameters to the resume parser: it never panics, takes
// the header over the parameter, accepts exactly the decimal event ids
// (surrounding spaces allowed), and reads back every id it writes.
func FuzzLastEventID(f *testing.F) {
	f.Add("57", "")
	f.Add("", "12")
	f.Add(" 18446744073709551615 ", "x")
	f.Add("18446744073709551616", "3")
	f.Add("-1", "")
	f.Add("+5", "")
	f.Add("0x10", "")
	f.Fuzz(func(t *testing.T, header, query string) {
		req := httptest.NewRequest(http.MethodGet, "/events/a?last_event_id="+url.QueryEscape(query), nil)
		if header != "" {
			req.Header["Last-Event-Id"] = []string{header}
		}
		n, ok := lastEventID(req)
		v := header
		if v == "" {
			v = query
		}
		v = strings.TrimSpace(v)
		digits := v != "" && strings.Trim(v, "0123456789") == ""
		if (ok && !digits) || (!ok && digits && len(strings.TrimLeft(v, "0")) < 20) {
			t.Fatalf("lastEventID(%q, %q) = %d, %v", header, query, n, ok)
		}
		if ok {
			if want := strings.TrimLeft(v, "0"); strconv.FormatUint(n, 10) != want && !(n == 0 && want == "") {
				t.Fatalf("lastEventID(%q) = %d", v, n)
			}
			back := httptest.NewRequest(http.MethodGet, "/events/a", nil)
			back.Header.Set("Last-Event-ID", strconv.FormatUint(n, 10))
			if m, ok := lastEventID(back); !ok || m != n {
				t.Fatalf("id %d read back as %d, %v", n, m, ok)
			}
		}
	})
}

// FuzzChannelName feeds arbitrary channel names to the checks and the
// subscription URL: an accepted name is short and free of control
// characters, comes back unchanged from a subscription URL (query form
// always, path form when the path needs no cleaning), from its log key
// and from allowed_channels naming it, and allowed_channels never panics.
func FuzzChannelName(f *testing.F) {
	for _, s := range []string{"orders", "tenant-*", "a/b", "a b", "ü", "a[", "%2F", "a\x00", "../x", strings.Repeat("c", 257)} {
		f.Add(s, "orders")
	}
	mux := http.NewServeMux()
	var got string
	capture := func(_ http.ResponseWriter, req *http.Request) { got = channelName(req) }
	mux.HandleFunc("GET /events/{channel...}", capture)
	mux.HandleFunc("GET /events", capture)
	h := &hub{prefix: "sender" + logKeySep}
	f.Fuzz(func(t *testing.T, name, other string) {
		cfg := SSEConfig{AllowedChannels: []string{name}}
		_ = cfg.channelAllowed(other) // any pattern, any name: no panic
		if checkChannel(name) != nil {
			return
		}
		if len(name) > MaxChannelLen || !validHeaderValue(name) {
			t.Fatalf("accepted %q", name)
		}
		if !cfg.channelAllowed(name) {
			t.Fatalf("allowed_channels [%q] refuses its own name", name)
		}
		key := h.key(name)
		if key[strings.LastIndex(key, logKeySep)+1:] != name {
			t.Fatalf("log key %q does not give back %q", key, name)
		}
		got = ""
		mux.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/events?channel="+url.QueryEscape(name), nil))
		if got != name {
			t.Fatalf("?channel= gave %q for %q", got, name)
		}
		if p := "/events/" + name; path.Clean(p) == p {
			segs := strings.Split(name, "/")
			for i, s := range segs {
				segs[i] = url.PathEscape(s)
			}
			got = ""
			mux.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/events/"+strings.Join(segs, "/"), nil))
			if got != name {
				t.Fatalf("path gave %q for %q", got, name)
			}
		}
	})
}

// FuzzBearerToken feeds arbitrary Authorization headers to the bearer
// parser: a token it returns is non-empty and trimmed, comes back from
// "Bearer <token>" in any case of the scheme, and a keyring of that token
// allows it and nothing longer.
func FuzzBearerToken(f *testing.F) {
	for _, s := range []string{"Bearer ingress-key-0123456789", "bearer  k ", "Basic dXNlcg==", "Bearer", "Bearer ", "BEARER\tx", "Bearer a b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		req := httptest.NewRequest(http.MethodPost, "/publish", nil)
		req.Header["Authorization"] = []string{header}
		token, ok := bearerToken(req)
		if !ok {
			if token != "" {
				t.Fatalf("refused %q but returned %q", header, token)
			}
			return
		}
		if token == "" || token != strings.TrimSpace(token) || !strings.EqualFold(header[:7], "Bearer ") {
			t.Fatalf("bearerToken(%q) = %q", header, token)
		}
		for _, scheme := range []string{"Bearer ", "bearer ", "BEARER "} {
			again := httptest.NewRequest(http.MethodPost, "/publish", nil)
			again.Header["Authorization"] = []string{scheme + token}
			if back, ok := bearerToken(again); !ok || back != token {
				t.Fatalf("%q read back as %q, %v", scheme+token, back, ok)
			}
		}
		kr := newKeyring([]string{token})
		if !kr.allows(token) || kr.allows(token+"x") || kr.allows("") {
			t.Fatalf("keyring of %q", token)
		}
	})
}

// FuzzIngressContentType feeds arbitrary Content-Type headers to the
// ingress checks: an envelope ingress accepts only application/json (with
// parameters), and whatever a browser could send without a preflight
// (missing, malformed, or a form media type) counts as a form type, so
// that the CSRF rule cannot be dodged by a header Go parses differently.
func FuzzIngressContentType(f *testing.F) {
	for _, s := range []string{"application/json", "application/json; charset=utf-8", "text/plain", "TEXT/PLAIN;x=1",
		"multipart/form-data; boundary=x", "application/x-www-form-urlencoded", "", "text/plain, application/json", "application/json;", "a/b/c"} {
		f.Add(s)
	}
	envelope := &ingress{r: &Receiver{cfg: DefaultReceiverConfig()}}
	texts := &ingress{r: &Receiver{cfg: ReceiverConfig{Body: BodyRaw, ContentTypes: []string{"text/*", "application/octet-stream"}}.WithDefaults()}}
	f.Fuzz(func(t *testing.T, ct string) {
		mt, _, err := mime.ParseMediaType(ct)
		if _, ok := envelope.contentTypeOK(ct); ok && ct != "application/json" && (err != nil || mt != "application/json") {
			t.Fatalf("envelope ingress accepted %q", ct)
		}
		if _, ok := texts.contentTypeOK(ct); ok && (err != nil || (!strings.HasPrefix(mt, "text/") && mt != "application/octet-stream")) {
			t.Fatalf("raw ingress accepted %q", ct)
		}
		form := formContentType(ct)
		if !form && (err != nil || slices.Contains(formMediaTypes, mt)) {
			t.Fatalf("%q (parsed %q, %v) is not counted as a form type", ct, mt, err)
		}
		if form && err == nil && strings.TrimSpace(ct) != "" && !slices.Contains(formMediaTypes, mt) {
			t.Fatalf("%q (parsed %q) counted as a form type", ct, mt)
		}
	})
}
