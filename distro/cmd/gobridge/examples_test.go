package main

import (
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/config"
	"github.com/gobridge-oss/gobridge/core/itest"
	"github.com/gobridge-oss/gobridge/service"
)

// TestExamplesAreValid loads and validates every file in examples/ with
// the bundled plugins, so an example never rots.
func TestExamplesAreValid(t *testing.T) {
	reg := bundled(t)
	files, err := filepath.Glob(filepath.Join("..", "..", "..", "examples", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples found: %v", err)
	}
	// The variables the examples reference, as their comments tell a user
	// to set them.
	env := []string{"GOBRIDGE_ADMIN_KEY=example-admin-key-0123456789", "GOBRIDGE_AMQP_PASSWORD=guest"}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f, err := config.Load(path, config.WithEnv(env))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := service.Validate(f, reg, nil); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestDocsWriteSupportedReferences: every ${...} in a YAML block of the
// project's Markdown is one the loader resolves (${env:NAME} or
// ${file:PATH}); a copied ${INGRESS_KEY} would otherwise be refused, or,
// before the loader refused it, become a public bearer key.
func TestDocsWriteSupportedReferences(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	ref := regexp.MustCompile(`\$?\$\{([^}]*)\}`)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules" || d.Name() == "data") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".md") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		inYAML := false
		for n, line := range strings.Split(string(b), "\n") {
			if trimmed := strings.TrimSpace(line); strings.HasPrefix(trimmed, "```") {
				inYAML = !inYAML && strings.HasPrefix(trimmed, "```yaml")
				continue
			}
			if !inYAML {
				continue
			}
			for _, m := range ref.FindAllStringSubmatch(line, -1) {
				if strings.HasPrefix(m[0], "$$") || strings.HasPrefix(m[1], "env:") || strings.HasPrefix(m[1], "file:") {
					continue
				}
				t.Errorf("%s:%d: %s is not a reference the loader resolves; write ${env:%s}", path, n+1, m[0], m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// brokerUp reports whether addr accepts TCP connections; when it does
// not, the test is skipped unless GOBRIDGE_REQUIRE_IT is set.
func brokerUp(t *testing.T, addr string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err == nil {
		_ = c.Close()
		return
	}
	itest.Unavailable(t, "broker %s unreachable: %v", addr, err)
}

// TestExampleMQTTToSSE runs examples/mqtt-to-sse.yaml against the local
// Mosquitto: a QoS 1 message published with mosquitto_pub reaches an SSE
// client with its subject.
func TestExampleMQTTToSSE(t *testing.T) {
	brokerUp(t, "127.0.0.1:1883")
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", "mqtt-to-sse.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	p := newPorts(t)
	topic := fmt.Sprintf("gobridge-test-%d", time.Now().UnixNano())
	cfg := string(raw)
	for old, repl := range map[string]string{
		"127.0.0.1:8090":            fmt.Sprintf("127.0.0.1:%d", p.sse),
		"127.0.0.1:8081":            fmt.Sprintf("127.0.0.1:%d", p.admin),
		"127.0.0.1:8082":            fmt.Sprintf("127.0.0.1:%d", p.monitor),
		"sensors/#":                 topic + "/#",
		"gobridge-mqtt-to-sse":      "gobridge-" + topic,
		"${env:GOBRIDGE_ADMIN_KEY}": testKey,
	} {
		cfg = strings.ReplaceAll(cfg, old, repl)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "mqtt.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	pr, _ := startBinary(t, path, dir, p)
	sse := subscribeTo(t, p, "sensors")
	out, err := exec.Command("mosquitto_pub", "-V", "mqttv5", "-h", "127.0.0.1", "-q", "1", "-t", topic+"/kitchen",
		"-m", `{"celsius":21.5}`, "-D", "publish", "user-property", "gobridge.subject", "sensors.reading").CombinedOutput()
	if err != nil {
		t.Fatalf("mosquitto_pub: %v\n%s", err, out)
	}
	evs := sse.waitFor(t, "the MQTT message", func(e []string) bool { return len(e) > 0 })
	for _, want := range []string{`"subject":"sensors.reading"`, `"celsius":21.5`, topic + "/kitchen"} {
		if !strings.Contains(evs[0], want) {
			t.Errorf("event %s lacks %s", evs[0], want)
		}
	}
	pr.stop(t)
}
