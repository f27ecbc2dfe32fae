package builder

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// minimalConfig is an MQTT to MQTT route through a filter: what the
// minimal distro bundles, and nothing more.
const minimalConfig = `bridge: {id: mini}
sessions:
  - id: broker
    type: mqtt
    settings: {urls: ["mqtt://127.0.0.1:1883"], client_id: gobridge-mini, session_expiry: 1h}
receivers:
  - id: in
    type: mqtt
    session_id: broker
    settings:
      subscriptions: [{topic: in/#, qos: 1}]
senders:
  - {id: out, type: mqtt, session_id: broker}
bindings:
  - {id: to-out, sender_id: out, address: out/messages}
processors:
  drop-tests:
    type: filter
    settings:
      action: drop
      conditions: [{field: header.x-test, operator: eq, value: "true"}]
routes:
  - id: r
    receiver_id: in
    delivery_mode: direct_hold
    bindings: [to-out]
    processors: [drop-tests]
    policy: {allow_retry_drop: true, on_expired: drop, on_permanent_failure: drop}
`

// TestMinimalDistroHoldsOnlyItsPlugins builds a distro of transports/mqtt
// and processors/filter from this checkout, runs its validate and version
// commands, and reads its build information: the two plugins are in it,
// the AMQP and SQLite modules and their client libraries are not.
func TestMinimalDistroHoldsOnlyItsPlugins(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles a binary")
	}
	dir := t.TempDir()
	manifest := filepath.Join(dir, "mini.yaml")
	raw := `dist: {name: mini, module: example.com/mini, package_dir: cmd/mini}
plugins:
  - {module: github.com/gobridge-oss/gobridge/transports/mqtt}
  - {module: github.com/gobridge-oss/gobridge/processors/filter}
local_repo: ` + mustAbs(t, repoRoot) + "\n"
	if err := os.WriteFile(manifest, []byte(raw), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := Load(manifest)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "mini")
	files, err := m.Generate(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(out, files); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	bin, err := m.Compile(ctx, out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(out, "mini"); bin != want {
		t.Errorf("binary at %s, want %s", bin, want)
	}

	cfg := filepath.Join(dir, "mqtt.yaml")
	if err := os.WriteFile(cfg, []byte(minimalConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{name: "validate", args: []string{"validate", "-c", cfg}, want: cfg + ": ok (1 routes)"},
		{name: "version", args: []string{"version"}, want: "mini "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := exec.CommandContext(ctx, bin, tc.args...).CombinedOutput()
			if err != nil || !strings.Contains(string(got), tc.want) {
				t.Errorf("mini %s: %v, output lacks %q:\n%s", strings.Join(tc.args, " "), err, tc.want, got)
			}
		})
	}

	info, err := exec.CommandContext(ctx, "go", "version", "-m", bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	in := map[string]bool{}
	for _, mod := range []string{
		"github.com/gobridge-oss/gobridge/transports/mqtt",
		"github.com/gobridge-oss/gobridge/processors/filter",
		"github.com/gobridge-oss/gobridge/transports/amqp091",
		"github.com/gobridge-oss/gobridge/stores/sqlite",
		"github.com/rabbitmq/amqp091-go",
		"github.com/mattn/go-sqlite3",
	} {
		in[mod] = strings.Contains(string(info), "\tdep\t"+mod+"\t")
	}
	want := map[string]bool{
		"github.com/gobridge-oss/gobridge/transports/mqtt":    true,
		"github.com/gobridge-oss/gobridge/processors/filter":  true,
		"github.com/gobridge-oss/gobridge/transports/amqp091": false,
		"github.com/gobridge-oss/gobridge/stores/sqlite":      false,
		"github.com/rabbitmq/amqp091-go":                      false,
		"github.com/mattn/go-sqlite3":                         false,
	}
	if diff := cmp.Diff(want, in); diff != "" {
		t.Errorf("modules in the binary (-want +got):\n%s\n%s", diff, info)
	}
}
