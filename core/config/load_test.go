package config

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
)

func problemsOf(t *testing.T, err error) Problems {
	t.Helper()
	var ps Problems
	if !errors.As(err, &ps) {
		t.Fatalf("error %v is not Problems", err)
	}
	return ps
}

func TestParseProblems(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want Problems
	}{
		{"unknown key", "routes: [{id: a, polcy: {}}]", Problems{{"routes[0].polcy", "unknown key"}}},
		{"unknown top-level key", "route: []", Problems{{"route", "unknown key"}}},
		{"wrong type", "routes: [{}, {}, {policy: {backoff: {multiplier: fast}}}]",
			Problems{{"routes[2].policy.backoff.multiplier", `expected a number, got string "fast"`}}},
		{"bad duration", "routes: [{policy: {send_timeout: soon}}]", Problems{{"routes[0].policy.send_timeout", `invalid duration "soon"`}}},
		{"number as duration", "routes: [{session: {lease_ttl: 300}}]", Problems{{"routes[0].session.lease_ttl", `invalid duration "300"`}}},
		{"int expected", "routes: [{policy: {max_in_flight: 1.5}}]", Problems{{"routes[0].policy.max_in_flight", "expected an integer, got number 1.5"}}},
		{"bool expected", "routes: [{trust_bridge_headers: yes}]", Problems{{"routes[0].trust_bridge_headers", `expected a boolean, got string "yes"`}}},
		{"list expected", "routes: {id: a}", Problems{{"routes", "expected a list, got a mapping"}}},
		{"mapping expected", "bridge: b", Problems{{"bridge", `expected a mapping, got string "b"`}}},
		{"string expected", "bridge: {id: [a]}", Problems{{"bridge.id", "expected a string, got a list"}}},
		{"settings must be a mapping", "senders: [{settings: 3}]", Problems{{"senders[0].settings", "expected a mapping, got number 3"}}},
		{"broker_health_step_down", "routes: [{session: {broker_health_step_down: never}}]",
			Problems{{"routes[0].session.broker_health_step_down", `invalid duration "never"`}}},
		{"not yaml", "bridge: [", Problems{{"", "invalid YAML: line 1: did not find expected node content"}}},
		{"all at once, in file order", `
telemetry: {log_level: 3}
bridge: {idd: x}
routes:
  - policy: {max_in_flight: x}
  - id: b
    session: {lease_ttl: x}
    bogus: 1
`, Problems{
			{"bridge.idd", "unknown key"},
			{"routes[0].policy.max_in_flight", `expected an integer, got string "x"`},
			{"routes[1].session.lease_ttl", `invalid duration "x"`},
			{"routes[1].bogus", "unknown key"},
			{"telemetry.log_level", "expected a string, got number 3"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.yaml), WithEnv(nil))
			if diff := cmp.Diff(tt.want, problemsOf(t, err)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDefaults(t *testing.T) {
	f, err := Parse([]byte(`
bridge: {id: b}
routes:
  - {id: a, session: {session_id: s, sender_id: x}}
  - {id: b, delivery_mode: shared_outbox, policy: {backoff: {jitter: 0}}}
http: {admin_api_key: 0123456789abcdef}
`), WithEnv(nil), WithHostname(func() (string, error) { return "host-1", nil }))
	if err != nil {
		t.Fatal(err)
	}
	want := Policy{
		MaxInFlight: 100, AckAfter: AckTargetAccept, MaxReplayAttempts: 5, ReplayBudget: 15 * time.Minute,
		MaxOutboxDepth: 10000, OnExpired: "dlq", OnPermanentFailure: "dlq", OnFiltered: "drop",
		Backoff:     Backoff{InitialInterval: time.Second, MaxInterval: 30 * time.Second, Multiplier: 2, Jitter: ptr(0.2)},
		SendTimeout: 30 * time.Second, DepthCacheTTL: time.Second,
	}
	if diff := cmp.Diff(want, f.Routes[0].Policy); diff != "" {
		t.Errorf("policy (-want +got):\n%s", diff)
	}
	if got := f.Routes[1].Policy; *got.Backoff.Jitter != 0 || got.AckAfter != AckOutboxPersist {
		t.Errorf("explicit jitter 0 / shared_outbox ack: got %v, %q", *got.Backoff.Jitter, got.AckAfter)
	}
	wantSession := &RouteSession{SessionID: "s", SenderID: "x", LeaseTTL: 360 * time.Second, MaxRenewFails: 3,
		StepDownGrace: 15 * time.Second, DrainBatchSize: 100, DrainMaxBatchSize: 500, DrainMaxConcurrency: 10,
		ConnectAfterLease: ptr(true)}
	if diff := cmp.Diff(wantSession, f.Routes[0].Session); diff != "" {
		t.Errorf("session (-want +got):\n%s", diff)
	}
	wantRest := []any{
		Bridge{ID: "b", Deployment: "standalone", InstanceID: "host-1", ShutdownTimeout: 30 * time.Second},
		&HTTP{AdminAddr: ":9080", MonitorAddr: ":9081", AdminAPIKey: "0123456789abcdef"},
		Telemetry{LogLevel: "info", LogFormat: "text", Metrics: ptr(true)},
	}
	if diff := cmp.Diff(wantRest, []any{f.Bridge, f.HTTP, f.Telemetry}); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestEnvOverrides(t *testing.T) {
	yaml := `
bridge: {id: b}
routes:
  - id: a
    bindings: [x]
    policy: {max_in_flight: 10}
senders:
  - {id: s, type: t, settings: {port: 1}}
`
	tests := []struct {
		name string
		env  []string
		get  func(f *File) any
		want any
	}{
		{"nested list index", []string{"GOBRIDGE_ROUTES__0__POLICY__MAX_IN_FLIGHT=50"}, func(f *File) any { return f.Routes[0].Policy.MaxInFlight }, 50},
		{"creates mappings", []string{"GOBRIDGE_ROUTES__0__POLICY__BACKOFF__MULTIPLIER=1.5"}, func(f *File) any { return f.Routes[0].Policy.Backoff.Multiplier }, 1.5},
		{"duration", []string{"GOBRIDGE_BRIDGE__SHUTDOWN_TIMEOUT=5s"}, func(f *File) any { return f.Bridge.ShutdownTimeout }, 5 * time.Second},
		{"bool", []string{"GOBRIDGE_ROUTES__0__TRUST_BRIDGE_HEADERS=true"}, func(f *File) any { return f.Routes[0].TrustBridgeHeaders }, true},
		{"string that looks numeric", []string{"GOBRIDGE_BRIDGE__ID=1234"}, func(f *File) any { return f.Bridge.ID }, "1234"},
		{"list in flow syntax", []string{"GOBRIDGE_ROUTES__0__BINDINGS=[x, y]"}, func(f *File) any { return f.Routes[0].Bindings }, []string{"x", "y"}},
		{"appends one past the end", []string{"GOBRIDGE_ROUTES__1__ID=new"}, func(f *File) any { return f.Routes[1].ID }, "new"},
		{"settings scalar typed", []string{"GOBRIDGE_SENDERS__0__SETTINGS__PORT=5672"}, func(f *File) any { return f.Senders[0].Settings["port"] }, 5672},
		{"new section", []string{"GOBRIDGE_HTTP__ADMIN_API_KEY=0123456789abcdef"}, func(f *File) any { return f.HTTP.AdminAPIKey }, "0123456789abcdef"},
		{"unrelated variables ignored", []string{"GOBRIDGE_REQUIRE_IT=1", "GOBRIDGE_=x", "OTHER=1"}, func(f *File) any { return f.Bridge.ID }, "b"},
		{"custom prefix", []string{"GOBRIDGE_BRIDGE__ID=no", "APP_BRIDGE__ID=yes"}, func(f *File) any { return f.Bridge.ID }, "yes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := []Option{WithEnv(tt.env)}
			if tt.name == "custom prefix" {
				opts = append(opts, WithEnvPrefix("APP_"))
			}
			f, err := Parse([]byte(yaml), opts...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, tt.get(f)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestEnvOverrideProblems(t *testing.T) {
	tests := []struct {
		env  string
		want Problem
	}{
		{"GOBRIDGE_ROUTES__5__ID=x", Problem{"routes", `GOBRIDGE_ROUTES__5__ID: "5" is not an index of this list of 1 elements`}},
		{"GOBRIDGE_ROUTES__0__POLICY__MAX_IN_FLIGHT=many", Problem{"routes[0].policy.max_in_flight", `expected an integer, got "many" (from GOBRIDGE_ROUTES__0__POLICY__MAX_IN_FLIGHT)`}},
		{"GOBRIDGE_ROUTES__0__ID__X=1", Problem{"routes[0].id", "GOBRIDGE_ROUTES__0__ID__X: cannot set a key inside a scalar value"}},
		{"GOBRIDGE_ROUTES__0__NOPE=1", Problem{"routes[0].nope", "unknown key"}},
	}
	for _, tt := range tests {
		t.Run(tt.env, func(t *testing.T) {
			_, err := Parse([]byte("routes: [{id: a}]"), WithEnv([]string{tt.env}))
			if diff := cmp.Diff(Problems{tt.want}, problemsOf(t, err)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestSecrets(t *testing.T) {
	fsys := fstest.MapFS{
		"run/key":  {Data: []byte("0123456789abcdef-from-file\n")},
		"run/pass": {Data: []byte("p4ss\n\n")},
	}
	yaml := `
bridge: {id: b}
senders:
  - id: s
    type: t
    settings:
      url: amqp://user:${env:AMQP_PASS}@host/
      password: ${file:/run/pass}
      literal: $${env:NOT_A_REF}
      plain_token: visible-in-yaml
      port: ${env:PORT}
http:
  admin_api_key: ${file:/run/key}
  monitor_api_key: ${env:MON_KEY}
`
	env := []string{"AMQP_PASS=s3cret", "PORT=5672", "MON_KEY=monitor-key-0123456"}
	f, err := Parse([]byte(yaml), WithEnv(env), WithFS(fsys))
	if err != nil {
		t.Fatal(err)
	}
	gotSettings := f.Senders[0].Settings
	wantSettings := map[string]any{
		"url": "amqp://user:s3cret@host/", "password": "p4ss\n", "literal": "${env:NOT_A_REF}",
		"plain_token": "visible-in-yaml", "port": "5672",
	}
	if diff := cmp.Diff(wantSettings, gotSettings); diff != "" {
		t.Errorf("settings (-want +got):\n%s", diff)
	}
	if f.HTTP.AdminAPIKey != "0123456789abcdef-from-file" || f.HTTP.MonitorAPIKey != "monitor-key-0123456" {
		t.Errorf("keys: %q %q", f.HTTP.AdminAPIKey, f.HTTP.MonitorAPIKey)
	}
	red := f.Redacted(nil)
	wantRed := map[string]any{
		"url": RedactedValue, "password": RedactedValue, "literal": "${env:NOT_A_REF}",
		"plain_token": RedactedValue, "port": RedactedValue,
	}
	gotRed := red["senders"].([]any)[0].(map[string]any)["settings"]
	if diff := cmp.Diff(wantRed, gotRed); diff != "" {
		t.Errorf("redacted settings (-want +got):\n%s", diff)
	}
	h := red["http"].(map[string]any)
	if h["admin_api_key"] != RedactedValue || h["monitor_api_key"] != RedactedValue {
		t.Errorf("redacted http: %v", h)
	}
	for _, secret := range []string{"s3cret", "p4ss", "from-file", "monitor-key"} {
		if s := flatten(red); strings.Contains(s, secret) {
			t.Errorf("Redacted() leaks %q: %s", secret, s)
		}
	}
}

func flatten(v any) string {
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				b.WriteString(k + "=")
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		default:
			b.WriteString(strings.TrimSpace(strings.ReplaceAll(cmp.Diff(nil, x), "\n", " ")) + ";")
		}
	}
	walk(v)
	return b.String()
}

func TestSecretProblemsHideValues(t *testing.T) {
	yaml := `
bridge: {id: "${env:MISSING}"}
senders: [{id: s, type: t, settings: {k: "${file:/nope}"}}]
routes: [{id: r, policy: {max_in_flight: "${env:BAD}"}}]
`
	_, err := Parse([]byte(yaml), WithEnv([]string{"BAD=topsecretvalue"}), WithFS(fstest.MapFS{}))
	want := Problems{
		{"bridge.id", "secret ${env:MISSING}: environment variable MISSING is not set"},
		{"senders[0].settings.k", "secret ${file:/nope}: cannot read the file: open nope: file does not exist"},
		{"routes[0].policy.max_in_flight", "expected an integer, got a secret that does not fit"},
	}
	ps := problemsOf(t, err)
	if diff := cmp.Diff(want, ps); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if strings.Contains(ps.Error(), "topsecretvalue") {
		t.Errorf("problem leaks the secret: %s", ps.Error())
	}
}

func TestLoad(t *testing.T) {
	fsys := fstest.MapFS{"etc/gobridge.yaml": {Data: []byte("bridge: {id: from-file}")}}
	f, err := Load("/etc/gobridge.yaml", WithFS(fsys), WithEnv(nil))
	if err != nil || f.Bridge.ID != "from-file" {
		t.Fatalf("Load() = %v, %v", f, err)
	}
	if _, err := Load("/missing.yaml", WithFS(fsys), WithEnv(nil)); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("Load(missing) error = %v", err)
	}
}

func TestValidateReportsAllAtOnce(t *testing.T) {
	f, err := Parse([]byte(`
bridge: {deployment: cloud}
receivers: [{id: in, type: memory}]
routes:
  - {id: a, receiver_id: nope, bindings: [x], policy: {backoff: {multiplier: 0.5, jitter: 2}}}
  - {id: a, receiver_id: in}
http: {admin_api_key: short, cors_origins: ["*"]}
`), WithEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Validate(func(*File) []Problem { return []Problem{{"receivers[0].settings", "from a check"}} })
	want := Problems{
		{"bridge.id", "bridge.id is required"},
		{"bridge.deployment", "must be one of: standalone, clustered"},
		{"receivers[0].settings", "from a check"},
		{"routes[0].receiver_id", `receiver_id "nope" not found in receivers`},
		{"routes[0].bindings[0]", `binding "x" not found in bindings`},
		{"routes[0].policy.on_expired", "dlq requires stores.dlq (configure a DLQ store or set on_expired: drop)"},
		{"routes[0].policy.on_permanent_failure", "dlq requires stores.dlq (configure a DLQ store or set on_permanent_failure: drop)"},
		{"routes[0].policy.backoff.multiplier", "must be >= 1, got 0.5"},
		{"routes[0].policy.backoff.jitter", "must be within [0,1], got 2"},
		{"routes[1].id", `duplicate id "a"`},
		{"routes[1].bindings", "at least one binding is required"},
		{"routes[1].policy.on_expired", "dlq requires stores.dlq (configure a DLQ store or set on_expired: drop)"},
		{"routes[1].policy.on_permanent_failure", "dlq requires stores.dlq (configure a DLQ store or set on_permanent_failure: drop)"},
		{"http.admin_api_key", "must be at least 16 characters, got 5"},
		{"http.cors_origins[0]", `wildcard origin "*" is rejected; list each allowed origin`},
	}
	if diff := cmp.Diff(want, problemsOf(t, err)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := problemsOf(t, err).Error(); strings.Count(got, "\n") != len(want)-1 {
		t.Errorf("Error() is not one problem per line:\n%s", got)
	}
}

func TestValidateKnownProcessors(t *testing.T) {
	f := base(t)
	f.Routes[0].Processors = []string{"p1", "go-registered"}
	if _, err := f.ValidateWith(ValidateOptions{KnownProcessors: []string{"go-registered"}, clusterPreview: true}); err != nil {
		t.Errorf("ValidateWith(KnownProcessors) = %v", err)
	}
}

func TestWarnings(t *testing.T) {
	f := base(t)
	r := &f.Routes[0]
	r.TrustBridgeHeaders = true
	r.Policy.AllowUnfenced = true
	r.Policy.Backoff.InitialInterval, r.Policy.Backoff.MaxInterval = time.Minute, time.Second
	f.HTTP.AdminAddr = ":9090"
	f.Routes = append(f.Routes, Route{ID: "r1", ReceiverID: "in", Bindings: []string{"b1"},
		Resolver: &Resolver{Type: ResolverAll, HeaderKey: "k", Rules: []Rule{{BindingID: "b1"}}}})
	f.Stores.DLQ = nil
	r = &f.Routes[0]
	r.Policy.OnExpired, r.Policy.OnPermanentFailure, r.Policy.OnFiltered, r.Policy.AllowRetryDrop = "drop", "drop", "drop", true
	f.Routes[1].Policy = r.Policy
	f.Routes[1].Policy.AllowUnfenced = false
	f.Routes[1].Policy.Backoff = Backoff{}
	warns, err := f.ValidateWith(preview)
	if err != nil {
		t.Fatal(err)
	}
	want := []Warning{
		{"routes[0].policy.backoff.initial_interval", "exceeds max_interval (1m0s > 1s): every retry waits max_interval"},
		{"routes[0].policy.allow_unfenced", "direct_hold on a shared consumer source runs without fencing: two instances may deliver the same message"},
		{"routes[0].policy.allow_retry_drop", "without a DLQ store a message from a source that cannot retry is dropped on its first transient failure"},
		{"routes[0].policy", "no DLQ store: expired, failed and filtered messages are dropped and only counted"},
		{"routes[0].trust_bridge_headers", "inbound x-bridge.* headers are trusted: only safe when the receiver is fed exclusively by another gobridge"},
		{"routes[1].policy.allow_retry_drop", "without a DLQ store a message from a source that cannot retry is dropped on its first transient failure"},
		{"routes[1].policy", "no DLQ store: expired, failed and filtered messages are dropped and only counted"},
		{"routes[1].resolver.header_map", `header_key and header_map are ignored by resolver type "all"`},
		{"routes[1].resolver.rules", `rules are ignored by resolver type "all"`},
		{"http.admin_addr", `listens on ":9090" without TLS: API keys travel in clear text unless a proxy terminates TLS`},
	}
	if diff := cmp.Diff(want, warns); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

func TestProblemsErrorForms(t *testing.T) {
	_, err := Parse([]byte("bridge: {x: 1}"), WithEnv(nil))
	var ptr *Problems
	var val Problems
	if !errors.As(err, &ptr) || !errors.As(err, &val) || len(*ptr) != 1 || len(val) != 1 {
		t.Fatalf("errors.As(%v): *Problems %v, Problems %v", err, ptr, val)
	}
	if got, want := err.Error(), "bridge.x: unknown key"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}
