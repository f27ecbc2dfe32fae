package servicetest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gobridge-oss/gobridge/core/config"
	"github.com/gobridge-oss/gobridge/core/httpapi"
	"github.com/gobridge-oss/gobridge/core/itest"
	"github.com/gobridge-oss/gobridge/core/registry"
	. "github.com/gobridge-oss/gobridge/service"
)

// bootDoc is a bridge with one HTTP-to-SSE route and an http block whose
// allow-list of posted references names env:GB_TEST_ALLOWED.
func bootDoc(t *testing.T) string {
	return fmt.Sprintf(`
bridge: {id: unit}
receivers:
  - {id: in, type: http, settings: {listen: "127.0.0.1:%d"}}
senders:
  - {id: out, type: sse, settings: {listen: "127.0.0.1:%d"}}
bindings:
  - {id: b, sender_id: out, address: one}
routes:
  - {id: r, receiver_id: in, bindings: [b]}
stores:
  dlq: {type: memory}
http:
  admin_addr: "127.0.0.1:%d"
  monitor_addr: "127.0.0.1:%d"
  admin_api_key: admin-key-0123456789
  posted_config_refs: [env:GB_TEST_ALLOWED]
`, itest.FreePort(t), itest.FreePort(t), itest.FreePort(t), itest.FreePort(t))
}

func newIdleBridge(t *testing.T, doc string) *Service {
	t.Helper()
	reg, err := bundledRegistry()
	if err != nil {
		t.Fatal(err)
	}
	f, err := config.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Validate(f, reg, nil); err != nil {
		t.Fatal(err)
	}
	b, err := NewFromFile(t.Context(), f, Settings{Registry: reg, Parse: config.Parse})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close(context.Background()) })
	return b
}

// TestPostedConfigCannotReadServerFilesOrVariables posts documents whose
// references point at a server file and variables to the validate and
// reload endpoints' backend: unlisted references are refused by name and
// never read, a listed one resolves but is never quoted back, and a
// posted document cannot widen the allow-list.
func TestPostedConfigCannotReadServerFilesOrVariables(t *testing.T) {
	const (
		fileSecret    = "file-secret-content-4242"
		envSecret     = "env-secret-content-4343"
		allowedSecret = "allowed-secret-content-4444"
	)
	secretFile := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secretFile, []byte(fileSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GB_TEST_SECRET", envSecret)
	t.Setenv("GB_TEST_ALLOWED", allowedSecret)
	boot := bootDoc(t)
	b := newIdleBridge(t, boot)
	addr := boot[strings.Index(boot, "admin_addr: ")+len("admin_addr: ") : strings.Index(boot, "\n  monitor_addr")]
	tests := []struct {
		name      string
		doc       string
		wantPath  string
		wantInMsg string
	}{
		{"file reference", strings.Replace(boot, "admin_addr: "+addr, `admin_addr: "${file:`+secretFile+`}"`, 1),
			"http.admin_addr", "${file:" + secretFile + "}"},
		{"variable reference in plugin settings", strings.Replace(boot, `settings: {listen: "127.0.0.1:`, `settings: {health_path: "${env:GB_TEST_SECRET}", listen: "127.0.0.1:`, 1),
			"receivers[0].settings.health_path", "env:GB_TEST_SECRET"},
		{"listed variable where a message would quote it", strings.Replace(boot, "admin_addr: "+addr, `admin_addr: "${env:GB_TEST_ALLOWED}"`, 1),
			"http.admin_addr", "invalid listen address"},
		{"widening the allow-list", strings.Replace(boot, "[env:GB_TEST_ALLOWED]", "[env:GB_TEST_ALLOWED, env:GB_TEST_SECRET]", 1),
			"http.posted_config_refs", "cannot change this list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := b.ValidateConfig(t.Context(), []byte(tt.doc))
			rres, rerr := b.Reload(t.Context(), []byte(tt.doc))
			if rerr == nil {
				t.Fatal("Reload accepted the document")
			}
			out, _ := json.Marshal([]any{res, rres, rerr.Error()})
			for _, s := range []string{fileSecret, envSecret, allowedSecret} {
				if strings.Contains(string(out), s) {
					t.Errorf("the answers quote %q: %s", s, out)
				}
			}
			if res.Valid {
				t.Fatal("ValidateConfig said valid")
			}
			i := slices.IndexFunc(res.Problems, func(p httpapi.Problem) bool { return p.Path == tt.wantPath })
			if i < 0 || !strings.Contains(res.Problems[i].Message, tt.wantInMsg) {
				t.Errorf("problems %+v; want one at %s saying %q", res.Problems, tt.wantPath, tt.wantInMsg)
			}
		})
	}
	if got := b.Status(t.Context()).ConfigGeneration; got != 1 {
		t.Errorf("generation %d after refused reloads, want 1", got)
	}
}

// secretPaths lists the settings paths a plugin schema marks secret, and
// returns a settings block with a distinct marker value at each.
func secretPaths(schema map[string]any, path string, n *int) (paths []string, value any) {
	if schema["x-secret"] == true || schema["writeOnly"] == true {
		*n++
		marker := fmt.Sprintf("SECRET-MARKER-%d", *n)
		switch schema["type"] {
		case "array":
			return []string{path}, []any{marker}
		case "object":
			return []string{path}, map[string]any{"K": marker}
		}
		return []string{path}, marker
	}
	switch schema["type"] {
	case "object":
		m := map[string]any{}
		props, _ := schema["properties"].(map[string]any)
		for k, p := range props {
			if ps, v := secretPaths(p.(map[string]any), path+"."+k, n); len(ps) > 0 {
				paths, m[k] = append(paths, ps...), v
			}
		}
		if extra, ok := schema["additionalProperties"].(map[string]any); ok {
			if ps, v := secretPaths(extra, path+".*", n); len(ps) > 0 {
				paths, m["any"] = append(paths, ps...), v
			}
		}
		return paths, m
	case "array":
		if items, ok := schema["items"].(map[string]any); ok {
			if ps, v := secretPaths(items, path+"[]", n); len(ps) > 0 {
				return ps, []any{v}
			}
		}
	}
	return nil, nil
}

// TestConfigRedactsEverySecretMarkedField walks the settings schema of
// every bundled factory, fills every field marked secret with a marker,
// and checks GET /admin/config's backend shows none of them; the known
// secret fields must be among those marked.
func TestConfigRedactsEverySecretMarkedField(t *testing.T) {
	reg, err := bundledRegistry()
	if err != nil {
		t.Fatal(err)
	}
	f := &config.File{Processors: map[string]config.Processor{}}
	marked := map[string][]string{}
	n := 0
	for _, fac := range bundledFactories() {
		var schema map[string]any
		if err := json.Unmarshal(fac.Schema(), &schema); err != nil {
			t.Fatalf("%s %s schema: %v", fac.Kind(), fac.Type(), err)
		}
		paths, settings := secretPaths(schema, "settings", &n)
		if len(paths) == 0 {
			continue
		}
		name := string(fac.Kind()) + "/" + fac.Type()
		marked[name] = paths
		s, _ := settings.(map[string]any)
		c := config.Component{ID: name, Type: fac.Type(), Settings: s}
		switch fac.Kind() {
		case registry.KindReceiver:
			f.Receivers = append(f.Receivers, c)
		case registry.KindSender:
			f.Senders = append(f.Senders, c)
		case registry.KindSession:
			f.Sessions = append(f.Sessions, c)
		case registry.KindProcessor:
			f.Processors[name] = config.Processor{Type: fac.Type(), Settings: s}
		case registry.KindStore:
			f.Stores.DLQ = &config.Store{Type: fac.Type(), Settings: s}
		}
	}
	known := map[string][]string{
		"receiver/http":  {"settings.bearer_keys"},
		"sender/sse":     {"settings.bearer_keys"},
		"sender/webhook": {"settings.headers", "settings.signing_secret"},
		"session/mqtt":   {"settings.password"},
	}
	for name, paths := range known {
		for _, p := range paths {
			if !slices.Contains(marked[name], p) {
				t.Errorf("%s: %s is not marked secret (marked: %v)", name, p, marked[name])
			}
		}
	}
	// What GET /admin/config shows: the running file redacted by the
	// plugins' schemas.
	out, err := json.Marshal(f.Redacted(PluginSchemas(reg)))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "SECRET-MARKER") {
		t.Errorf("GET /admin/config shows values of fields marked secret: %s", out)
	}
	if n == 0 {
		t.Fatal("no field of any bundled plugin is marked secret")
	}
}

// TestConfigRedactsKnownSecrets runs the cases an outside review found:
// the AMQP URL password, webhook headers and a token in the webhook URL,
// ingress and SSE bearer keys, and the MQTT password.
func TestConfigRedactsKnownSecrets(t *testing.T) {
	doc := fmt.Sprintf(`
bridge: {id: unit}
sessions:
  - {id: rabbit, type: amqp091, settings: {url: "amqp://app:amqp-url-password@127.0.0.1:5672/"}}
  - {id: broker, type: mqtt, settings: {urls: ["mqtt://127.0.0.1:1883"], username: u, password: mqtt-password-1}}
receivers:
  - {id: in, type: http, settings: {listen: "127.0.0.1:%d", bearer_keys: [ingress-bearer-key-0123456]}}
senders:
  - {id: out, type: sse, settings: {listen: "127.0.0.1:%d", bearer_keys: [sse-bearer-key-0123456789]}}
  - id: hook
    type: webhook
    settings:
      url: "https://hooks.example.com/in?token=webhook-url-token&team=ops"
      headers: {Authorization: "Bearer webhook-header-token"}
bindings:
  - {id: b, sender_id: out, address: one}
  - {id: h, sender_id: hook}
routes:
  - {id: r, receiver_id: in, bindings: [b, h], dispatch_mode: fan_out}
stores:
  dlq: {type: memory}
http:
  admin_addr: "127.0.0.1:%d"
  monitor_addr: "127.0.0.1:%d"
  admin_api_key: admin-key-0123456789
`, itest.FreePort(t), itest.FreePort(t), itest.FreePort(t), itest.FreePort(t))
	reg, err := bundledRegistry()
	if err != nil {
		t.Fatal(err)
	}
	f, err := config.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Validate(f, reg, nil); err != nil {
		t.Fatal(err)
	}
	var buf strings.Builder
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(f.Redacted(PluginSchemas(reg))); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, s := range []string{"amqp-url-password", "mqtt-password-1", "ingress-bearer-key", "sse-bearer-key",
		"webhook-url-token", "webhook-header-token", "admin-key-0123456789"} {
		if strings.Contains(out, s) {
			t.Errorf("GET /admin/config shows %q", s)
		}
	}
	for _, s := range []string{"amqp://app:<redacted>@127.0.0.1:5672/", "token=<redacted>&team=ops", `"Authorization":"<redacted>"`} {
		if !strings.Contains(out, s) {
			t.Errorf("GET /admin/config lacks %s: %s", s, out)
		}
	}
}
