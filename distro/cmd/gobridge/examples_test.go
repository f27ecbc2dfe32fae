package main

import (
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/config"
	"github.com/gobridge-oss/gobridge/core/itest"
	"github.com/gobridge-oss/gobridge/service"
)

// TestExamplesAreValid loads and validates every file in examples/ with
// the bundled plugins, in the environment its header comment sets on the
// line that starts the bridge and in no other: a variable the file needs
// but the header does not set, or one the header sets but the file never
// reads, fails, so the header works as written.
func TestExamplesAreValid(t *testing.T) {
	reg := bundled(t)
	files, err := filepath.Glob(filepath.Join("..", "..", "..", "examples", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples found: %v", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			env := headerEnv(string(raw))
			f, err := config.Load(path, config.WithEnv(env))
			if err != nil {
				t.Fatalf("with the header's environment %q: %v", env, err)
			}
			if _, err := service.Validate(f, reg, nil); err != nil {
				t.Fatal(err)
			}
			for _, c := range headerCommands(string(raw)) {
				if strings.HasPrefix(c, "rabbitmqadmin ") {
					t.Errorf("the header runs %q: rabbitmqadmin needs RabbitMQ's management plugin, which the documented set-up lacks", c)
				}
			}
			for _, kv := range env {
				name, _, _ := strings.Cut(kv, "=")
				if !strings.Contains(string(raw), "${env:"+name+"}") {
					t.Errorf("the header sets %s, which the file does not read", name)
				}
			}
		})
	}
}

// headerCommands returns the command lines of a file's header comment,
// continuation lines joined, comments after the command dropped.
func headerCommands(file string) []string {
	var header []string
	for _, line := range strings.Split(file, "\n") {
		if !strings.HasPrefix(line, "#") {
			break
		}
		header = append(header, strings.TrimSpace(strings.TrimPrefix(line, "#")))
	}
	var out []string
	for _, c := range strings.Split(strings.ReplaceAll(strings.Join(header, "\n"), "\\\n", " "), "\n") {
		if i := strings.Index(c, "   #"); i >= 0 {
			c = c[:i]
		}
		out = append(out, strings.TrimSpace(c))
	}
	return out
}

// headerEnv returns the variables that a file's header comment sets on
// the command that runs the bridge ("A=x B=$(...) go run
// ./distro/cmd/gobridge run ..."), as KEY=value; a $(...) value stands for
// a generated key.
func headerEnv(file string) []string {
	assign := regexp.MustCompile(`^([A-Z][A-Z0-9_]*)=(\$\([^)]*\)|\S+)\s+`)
	var env []string
	for _, c := range headerCommands(file) {
		if !strings.Contains(c, "distro/cmd/gobridge run") {
			continue
		}
		for m := assign.FindStringSubmatch(c); m != nil; m = assign.FindStringSubmatch(c) {
			v := m[2]
			if strings.HasPrefix(v, "$(") {
				v = "generated-0123456789abcdef"
			}
			env = append(env, m[1]+"="+v)
			c = c[len(m[0]):]
		}
	}
	return env
}

// shellWords splits a command line as a shell does for the quoting the
// headers use: blanks separate words, single quotes keep a word whole.
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	inWord, quoted := false, false
	for _, r := range line {
		switch {
		case r == '\'':
			quoted, inWord = !quoted, true
		case (r == ' ' || r == '\t') && !quoted:
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
			}
			inWord = false
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// TestExampleHeadersPublishCommands runs every tools/cmd/amqppublish
// command of the examples' headers, as written but for the exchange and
// queue names made unique, against the local RabbitMQ: each succeeds, and
// a published message lands where the example's bridge would read it.
func TestExampleHeadersPublishCommands(t *testing.T) {
	brokerUp(t, "127.0.0.1:5672")
	files, err := filepath.Glob(filepath.Join("..", "..", "..", "examples", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "amqppublish")
	build := exec.Command("go", "build", "-o", bin, "./cmd/amqppublish")
	build.Dir = filepath.Join("..", "..", "..", "tools")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build amqppublish: %v\n%s", err, out)
	}
	ch := rabbitChannel(t)
	suffix := fmt.Sprint(time.Now().UnixNano())
	uniq := func(name string) string { return name + "-hdr-" + suffix }
	// What the amqp-to-mqtt bridge declares at start: the exchange and a
	// queue bound to it.
	if err := ch.ExchangeDeclare(uniq("orders"), "topic", false, true, false, false, nil); err != nil {
		t.Fatal(err)
	}
	bound := uniq("orders.to-mqtt")
	for _, q := range []string{bound, uniq("orders.in"), uniq("orders.out")} {
		t.Cleanup(func() { _, _ = ch.QueueDelete(q, false, false, false) })
	}
	if _, err := ch.QueueDeclare(bound, false, false, false, false, nil); err != nil {
		t.Fatal(err)
	}
	if err := ch.QueueBind(bound, "#", uniq("orders"), false, nil); err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, path := range files {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range headerCommands(string(raw)) {
			words := shellWords(c)
			if len(words) < 3 || strings.Join(words[:3], " ") != "go run ./tools/cmd/amqppublish" {
				continue
			}
			args := words[3:]
			for i, a := range args {
				if i > 0 && slices.Contains([]string{"-exchange", "-key", "-declare-queue"}, args[i-1]) && strings.HasPrefix(a, "orders") && !strings.Contains(a, "created") {
					args[i] = uniq(a)
				}
			}
			out, err := exec.Command(bin, args...).CombinedOutput()
			if err != nil {
				t.Errorf("%s: %q: %v\n%s", filepath.Base(path), c, err, out)
			}
			ran++
		}
	}
	if ran < 3 {
		t.Fatalf("ran %d amqppublish commands; want those of amqp-to-mqtt and amqp10-to-amqp10", ran)
	}
	for _, q := range []string{bound, uniq("orders.in")} {
		d, ok, err := ch.Get(q, true)
		if err != nil || !ok || string(d.Body) != `{"id":7}` {
			t.Errorf("queue %s: got %q, ok %v, %v; want the header's message", q, d.Body, ok, err)
		}
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
