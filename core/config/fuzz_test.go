package config

import (
	"testing"
	"testing/fstest"
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
		_ = cfg.Redacted()
		for i := range cfg.Routes {
			r := &cfg.Routes[i]
			_ = r.RuntimePolicy()
			_ = r.Resolver.RoutingSpec()
			_ = cfg.RoutingBindings(r)
		}
		_ = Diff(cfg, base(t))
	})
}
