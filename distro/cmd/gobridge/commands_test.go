package main

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobridge-oss/gobridge/core/config"
	"github.com/gobridge-oss/gobridge/examples"
	"github.com/gobridge-oss/gobridge/transports/httpsse"
)

func TestValidateCommand(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(good, examples.Quickstart, 0o600); err != nil {
		t.Fatal(err)
	}
	broken := strings.Replace(string(examples.Quickstart), "type: sse", "type: ssee", 1)
	broken = strings.Replace(broken, "max_in_flight: 256", "max_in_flight: 256\n      backoff: {multiplier: 0.5}", 1)
	broken = strings.Replace(broken, "receiver_id: http-in", "receiver_id: http-inn", 1)
	if err := os.WriteFile(bad, []byte(broken), 0o600); err != nil {
		t.Fatal(err)
	}
	// One mistake of each round the loader used to report apart: an
	// unknown key (decoding), a reference to nothing (the model's rules)
	// and a plugin setting (the factory's decoding).
	mixed := filepath.Join(dir, "mixed.yaml")
	m := strings.Replace(string(examples.Quickstart), "max_in_flight: 256", "max_in_flight: 256\n    polcy: {}", 1)
	m = strings.Replace(m, "receiver_id: http-in", "receiver_id: http-inn", 1)
	m = strings.Replace(m, "replay_from: earliest", "replay_from: sometimes", 1)
	if err := os.WriteFile(mixed, []byte(m), 0o600); err != nil {
		t.Fatal(err)
	}
	// A secret written the shell's way, which the loader would keep as
	// the public text ${INGRESS_KEY}.
	shell := filepath.Join(dir, "shell.yaml")
	sh := strings.Replace(string(examples.Quickstart), "forward_headers: [x-test]",
		`forward_headers: [x-test]
      bearer_keys: ["${INGRESS_KEY}"]`, 1)
	if err := os.WriteFile(shell, []byte(sh), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     []string
	}{
		{"quickstart is valid", []string{"validate", "-c", good}, exitOK, []string{"ok (1 routes)"}},
		{"every problem at once", []string{"validate", "-c", bad}, exitInvalid, []string{
			`senders[0].type: unknown sender type "ssee"`,
			"routes[0].policy.backoff.multiplier",
			`routes[0].receiver_id`,
		}},
		{"an unknown key hides nothing", []string{"validate", "-c", mixed}, exitInvalid, []string{
			"3 problem(s)",
			"routes[0].polcy: unknown key",
			`routes[0].receiver_id: receiver_id "http-inn" not found in receivers`,
			"senders[0].settings: ",
		}},
		{"a shell-style reference", []string{"validate", "-c", shell}, exitInvalid, []string{
			"receivers[0].settings.bearer_keys[0]: ${INGRESS_KEY} is not a reference the loader resolves",
			"write ${env:INGRESS_KEY}",
		}},
		{"missing file flag", []string{"validate"}, exitUsage, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(t.Context(), tc.args, &out, &errOut)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.wantCode, out.String(), errOut.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
}

func TestConfigSchemaCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(t.Context(), []string{"config", "schema"}, &out, &errOut); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var schema map[string]any
	if err := json.Unmarshal(out.Bytes(), &schema); err != nil {
		t.Fatalf("schema is not JSON: %v", err)
	}
	for _, want := range []string{`"receivers"`, `"routes"`, `"max_in_flight"`, `"paths"`, `"synchronous"`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("schema lacks %s", want)
		}
	}
}

func TestVersionListsBundledModules(t *testing.T) {
	var out bytes.Buffer
	if code := run(t.Context(), []string{"version"}, &out, &out); code != exitOK {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"gobridge ", "stores/sqlite", "transports/httpsse", "processors/filter"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("version output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestDefaultListenersDoNotCollide: a file that leaves every address at
// its default (admin and monitor API, HTTP ingress, SSE egress) starts,
// instead of failing on a port two listeners want.
func TestDefaultListenersDoNotCollide(t *testing.T) {
	f, err := config.Parse([]byte("bridge: {id: b}\nhttp: {admin_api_key: 0123456789abcdef}\n"), config.WithEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	addrs := map[string]string{
		"http.admin_addr":   f.HTTP.AdminAddr,
		"http.monitor_addr": f.HTTP.MonitorAddr,
		"http listen":       httpsse.ReceiverConfig{}.WithDefaults().Listen,
		"sse listen":        httpsse.SSEConfig{}.WithDefaults().Listen,
	}
	byPort := map[string]string{}
	for _, name := range []string{"http.admin_addr", "http.monitor_addr", "http listen", "sse listen"} {
		_, port, err := net.SplitHostPort(addrs[name])
		if err != nil {
			t.Fatalf("%s %q: %v", name, addrs[name], err)
		}
		if other, dup := byPort[port]; dup {
			t.Errorf("%s and %s both default to port %s", other, name, port)
		}
		byPort[port] = name
	}
}
