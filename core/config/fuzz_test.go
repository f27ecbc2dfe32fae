package config

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"
	"unicode"
	"unicode/utf8"
)

// FuzzParse feeds arbitrary documents to Parse and, when they decode, to
// Validate, Redacted, the conversions and Diff: none may panic.
func FuzzParse(f *testing.F) {
	f.Add([]byte(baseYAML))
	f.Add([]byte("routes: [{policy: {backoff: {jitter: 0}}}]"))
	fsys := fstest.MapFS{"k": {Data: []byte("0123456789abcdef\n")}}
	env := []string{"GOBRIDGE_ROUTES__0__ID=env", "GOBRIDGE_ROUTES__1__POLICY__MAX_IN_FLIGHT=3", "K=v"}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse(data, WithEnv(env), WithFS(fsys))
		if err != nil {
			if _, ok := err.(*Problems); !ok {
				t.Fatalf("Parse error %T is not Problems: %v", err, err)
			}
			return
		}
		_, _ = cfg.Validate()
		_ = cfg.Redacted(nil)
		for i := range cfg.Routes {
			r := &cfg.Routes[i]
			_ = r.RuntimePolicy()
			_ = r.Resolver.RoutingSpec()
			_ = cfg.RoutingBindings(r)
		}
		_ = Diff(cfg, base(t))
	})
}

// FuzzExpandRefs parses a document whose one value the fuzzer writes, as a
// document posted with an empty allow-list and then with one listed
// reference: no file outside the list is ever read, no variable outside
// it resolves, and no problem quotes the value of the listed one.
func FuzzExpandRefs(f *testing.F) {
	for _, s := range []string{"${file:/etc/shadow}", "${env:SECRET}", "$${env:SECRET}", "a${env:ALLOWED}b",
		"${file:/run/allowed}", "${env:}", "${file:${env:SECRET}}", "${env:ALLOWED", "$$${env:ALLOWED}"} {
		f.Add(s)
	}
	const (
		secret  = "never-seen-secret-value"
		allowed = "allowed-secret-value-0123"
	)
	env := []string{"SECRET=" + secret, "ALLOWED=" + allowed}
	f.Fuzz(func(t *testing.T, value string) {
		q, err := json.Marshal(value)
		if err != nil {
			return
		}
		doc := baseYAML + "  monitor_api_key: " + string(q) + "\n"
		for _, list := range [][]string{nil, {"env:ALLOWED", "file:/run/allowed"}} {
			read := func(name string) ([]byte, error) {
				if name != "/run/allowed" || list == nil {
					t.Fatalf("read %q with allow-list %v", name, list)
				}
				return []byte(allowed), nil
			}
			cfg, err := Parse([]byte(doc), WithEnv(env), WithReadFile(read), WithAllowedRefs(list))
			var text string
			if err != nil {
				text = err.Error()
			} else {
				if strings.Contains(cfg.HTTP.MonitorAPIKey, secret) && !strings.Contains(value, secret) {
					t.Fatalf("an unlisted variable resolved: %q", cfg.HTTP.MonitorAPIKey)
				}
				_, verr := cfg.Validate()
				if verr != nil {
					text = verr.Error()
				}
			}
			for _, v := range []string{secret, allowed} {
				if strings.Contains(text, v) && !strings.Contains(value, v) {
					t.Fatalf("a problem quotes a resolved value %q: %s", v, text)
				}
			}
		}
	})
}

// FuzzRedactText checks that RedactText never returns a URL password or
// a credential query value it was given, and changes nothing without "://".
func FuzzRedactText(f *testing.F) {
	for _, s := range []string{"amqp://u:p@h/", "https://h/?token=t&a=b#f", "x https://u:p@h?key=k y", "://@:?=&#", "no url"} {
		f.Add(s, "s3cr3tpw")
	}
	f.Fuzz(func(t *testing.T, text, pw string) {
		if !strings.Contains(text, "://") && RedactText(text) != text {
			t.Fatalf("RedactText(%q) changed a text without a URL", text)
		}
		// A password is one URL-safe token: the pattern of RedactText ends
		// a URL at white space, and reserved characters would end the
		// user information or the query value early.
		if pw == "" || strings.ContainsAny(pw, "@/?#&=:%\"'<>") || strings.IndexFunc(pw, func(r rune) bool {
			return unicode.IsSpace(r) || unicode.IsControl(r) || r == utf8.RuneError
		}) >= 0 {
			return
		}
		const skeleton = "amqp://user:<redacted>@host:5672/vh https://h/p?a=1&access_token=<redacted>&b=2"
		if strings.Contains(text, pw) || strings.Contains(skeleton, pw) {
			return
		}
		in := text + " amqp://user:" + pw + "@host:5672/vh https://h/p?a=1&access_token=" + pw + "&b=2"
		if out := RedactText(in); strings.Contains(out, pw) {
			t.Fatalf("RedactText(%q) = %q keeps the password", in, out)
		}
	})
}
