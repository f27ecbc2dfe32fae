package amqp10

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	amqp "github.com/Azure/go-amqp"

	"github.com/gobridge-oss/gobridge/core/itest"
)

const rabbitServer = "/usr/lib/rabbitmq/bin/rabbitmq-server"

// rmqNode is a RabbitMQ node of one test's own: the installed
// rabbitmq-server under a node name, ports and state directory of its
// own, with the AMQP 1.0 plugin and, when asked, a TLS listener that
// takes SASL EXTERNAL. The test may kill it as a crash would and start it
// again on the same ports and data. The shared node on 5672 is never
// touched.
type rmqNode struct {
	t       *testing.T
	dir     string
	port    int // plain AMQP (0-9-1 and 1.0)
	tlsPort int // 0 without TLS
	env     []string
	cmd     *exec.Cmd
	exited  chan struct{}
}

// rmqTLS asks for a TLS listener that verifies client certificates
// against ca and maps a certificate's common name to a user.
type rmqTLS struct {
	caFile, certFile, keyFile string
	// users are created without a password: they can log in only with
	// SASL EXTERNAL, through a certificate naming them.
	users []string
}

// startRMQNode starts a private node and stops it when t ends. It skips
// (or fails, with GOBRIDGE_REQUIRE_IT) when rabbitmq-server is missing.
func startRMQNode(t *testing.T, tlsOpts *rmqTLS) *rmqNode {
	t.Helper()
	itest.Short(t, "starts a RabbitMQ node of its own")
	if _, err := os.Stat(rabbitServer); err != nil {
		itest.Unavailable(t, "rabbitmq-server is not installed (%v)", err)
	}
	dir, err := os.MkdirTemp("", "gobridge-rmq-")
	if err != nil {
		t.Fatal(err)
	}
	n := &rmqNode{t: t, dir: dir, port: itest.FreePort(t)}
	dist := itest.FreePort(t)
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	name := "gobridge-amqp10-" + hex.EncodeToString(b) + "@localhost"

	conf := []string{
		fmt.Sprintf("listeners.tcp.local = 127.0.0.1:%d", n.port),
		"log.file.level = warning",
	}
	if tlsOpts != nil {
		n.tlsPort = itest.FreePort(t)
		conf = append(conf,
			fmt.Sprintf("listeners.ssl.local = 127.0.0.1:%d", n.tlsPort),
			"ssl_options.cacertfile = "+tlsOpts.caFile,
			"ssl_options.certfile = "+tlsOpts.certFile,
			"ssl_options.keyfile = "+tlsOpts.keyFile,
			"ssl_options.verify = verify_peer",
			"ssl_options.fail_if_no_peer_cert = true",
			"auth_mechanisms.1 = PLAIN",
			"auth_mechanisms.2 = EXTERNAL",
			"ssl_cert_login_from = common_name",
			"load_definitions = "+filepath.Join(dir, "definitions.json"),
		)
		writeFile(t, filepath.Join(dir, "definitions.json"), definitions(tlsOpts.users))
	}
	writeFile(t, filepath.Join(dir, "rabbitmq.conf"), strings.Join(conf, "\n")+"\n")
	writeFile(t, filepath.Join(dir, "enabled_plugins"), "[rabbitmq_amqp1_0,rabbitmq_auth_mechanism_ssl].\n")
	writeFile(t, filepath.Join(dir, "rabbitmq-env.conf"), "")
	for _, d := range []string{"home", "mnesia", "log", "plugins-expand"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "RABBITMQ_") && !strings.HasPrefix(kv, "ERL_") && !strings.HasPrefix(kv, "HOME=") {
			n.env = append(n.env, kv)
		}
	}
	n.env = append(n.env,
		"HOME="+filepath.Join(dir, "home"),
		"RABBITMQ_NODENAME="+name,
		fmt.Sprintf("RABBITMQ_NODE_PORT=%d", n.port),
		fmt.Sprintf("RABBITMQ_DIST_PORT=%d", dist),
		"RABBITMQ_CONF_ENV_FILE="+filepath.Join(dir, "rabbitmq-env.conf"),
		"RABBITMQ_CONFIG_FILE="+filepath.Join(dir, "rabbitmq.conf"),
		"RABBITMQ_ENABLED_PLUGINS_FILE="+filepath.Join(dir, "enabled_plugins"),
		"RABBITMQ_PLUGINS_EXPAND_DIR="+filepath.Join(dir, "plugins-expand"),
		"RABBITMQ_MNESIA_BASE="+filepath.Join(dir, "mnesia"),
		"RABBITMQ_LOG_BASE="+filepath.Join(dir, "log"),
		"RABBITMQ_PID_FILE="+filepath.Join(dir, "node.pid"),
		"ERL_EPMD_ADDRESS=127.0.0.1",
		"RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS=-kernel inet_dist_use_interface {127,0,0,1}",
		// The start script then execs the VM instead of waiting on it in
		// the background, so the process started here is the node.
		"RUNNING_UNDER_SYSTEMD=true",
	)
	t.Cleanup(func() {
		n.stop()
		_ = os.RemoveAll(dir)
	})
	n.start()
	return n
}

// start runs the node and waits until it speaks AMQP 1.0.
func (n *rmqNode) start() {
	n.t.Helper()
	out, err := os.OpenFile(filepath.Join(n.dir, "log", "console.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		n.t.Fatal(err)
	}
	cmd := exec.Command(rabbitServer)
	cmd.Env, cmd.Stdout, cmd.Stderr = n.env, out, out
	// A group of its own, so that a kill reaches the VM's helpers too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		_ = out.Close()
		itest.Unavailable(n.t, "rabbitmq-server does not start: %v", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); _ = out.Close(); close(exited) }()
	n.cmd, n.exited = cmd, exited

	deadline := time.Now().Add(2 * time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		conn, err := amqp.Dial(ctx, n.url(), &amqp.ConnOptions{SASLType: amqp.SASLTypePlain("guest", "guest")})
		cancel()
		if err == nil {
			_ = conn.Close()
			return
		}
		select {
		case <-exited:
			n.t.Fatalf("the private RabbitMQ node exited while starting; log:\n%s", n.logTail())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			n.t.Fatalf("the private RabbitMQ node did not answer AMQP 1.0 within 2m (%v); log:\n%s", err, n.logTail())
		}
	}
}

// persistMetadata makes the node write its metadata store (queue
// declarations) to disk now. A SIGKILL soon after a declaration can
// otherwise lose the queue itself, and with it every message it held,
// which is the broker's crash window, not the bridge's.
func (n *rmqNode) persistMetadata() {
	n.t.Helper()
	var name string
	for _, kv := range n.env {
		if v, ok := strings.CutPrefix(kv, "RABBITMQ_NODENAME="); ok {
			name = v
		}
	}
	cmd := exec.Command(filepath.Join(filepath.Dir(rabbitServer), "rabbitmqctl"), "-n", name, "eval", "mnesia:dump_log().")
	cmd.Env = n.env
	if out, err := cmd.CombinedOutput(); err != nil {
		n.t.Fatalf("rabbitmqctl eval mnesia:dump_log(): %v\n%s", err, out)
	}
}

// kill ends the node with SIGKILL, as a crash would.
func (n *rmqNode) kill() {
	n.t.Helper()
	n.signal(syscall.SIGKILL)
	select {
	case <-n.exited:
	case <-time.After(30 * time.Second):
		n.t.Fatal("the private RabbitMQ node survived SIGKILL")
	}
}

// stop shuts the node down (SIGTERM, then SIGKILL after 90s: a loaded
// machine can take that long). It reports whether the node stopped on
// SIGTERM, that is gracefully.
func (n *rmqNode) stop() bool {
	if n.cmd == nil {
		return true
	}
	select {
	case <-n.exited:
		return true
	default:
	}
	graceful := true
	_ = n.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-n.exited:
	case <-time.After(90 * time.Second):
		graceful = false
		n.t.Logf("the private RabbitMQ node ignored SIGTERM for 90s; killing it")
		n.signal(syscall.SIGKILL)
		<-n.exited
	}
	// Helpers of the VM that outlived it.
	_ = syscall.Kill(-n.cmd.Process.Pid, syscall.SIGKILL)
	return graceful
}

func (n *rmqNode) signal(sig syscall.Signal) {
	if err := syscall.Kill(-n.cmd.Process.Pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		n.t.Errorf("signal the private RabbitMQ node: %v", err)
	}
}

func (n *rmqNode) url() string { return fmt.Sprintf("amqp://127.0.0.1:%d", n.port) }

// url091 is the node's AMQP 0-9-1 URL, used to declare and read queues.
func (n *rmqNode) url091() string { return fmt.Sprintf("amqp://guest:guest@127.0.0.1:%d/", n.port) }

func (n *rmqNode) logTail() string {
	b, _ := os.ReadFile(filepath.Join(n.dir, "log", "console.log"))
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// definitions is a definitions file with guest (password guest) and the
// given password-less users, all with full rights on "/".
func definitions(users []string) string {
	type user struct {
		Name      string `json:"name"`
		Hash      string `json:"password_hash"`
		Algorithm string `json:"hashing_algorithm"`
		Tags      string `json:"tags"`
	}
	type perm struct {
		User      string `json:"user"`
		VHost     string `json:"vhost"`
		Configure string `json:"configure"`
		Write     string `json:"write"`
		Read      string `json:"read"`
	}
	salt := make([]byte, 4)
	_, _ = rand.Read(salt)
	sum := sha256.Sum256(append(append([]byte{}, salt...), "guest"...))
	defs := struct {
		Users       []user              `json:"users"`
		VHosts      []map[string]string `json:"vhosts"`
		Permissions []perm              `json:"permissions"`
	}{VHosts: []map[string]string{{"name": "/"}}}
	for _, u := range append([]string{"guest"}, users...) {
		hash := ""
		if u == "guest" {
			hash = base64.StdEncoding.EncodeToString(append(salt, sum[:]...))
		}
		defs.Users = append(defs.Users, user{u, hash, "rabbit_password_hashing_sha256", ""})
		defs.Permissions = append(defs.Permissions, perm{u, "/", ".*", ".*", ".*"})
	}
	b, _ := json.Marshal(defs)
	return string(b)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
