package amqpio

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/gobridge-oss/gobridge/tools/bench"
)

// Node is a RabbitMQ node the harness started for itself from the
// machine's installation, so that the broker CPU it reads is its own
// runs' and not other users' of the machine's broker.
type Node struct {
	URL  string // amqp://guest:guest@127.0.0.1:PORT/
	Name string // the Erlang node name
	cmd  *exec.Cmd
	done chan error
	dir  string
}

// StartNode runs rabbitmq-server (bin, default from PATH or /usr/sbin) as
// a node of its own: free AMQP and distribution ports, every file under
// dir, no configuration file, and no plugin but AMQP 1.0's. Run as root, the script
// switches to the rabbitmq user, so dir is handed to that user.
func StartNode(ctx context.Context, bin, dir string) (*Node, error) {
	if bin == "" {
		p, err := exec.LookPath("rabbitmq-server")
		if err != nil {
			p = "/usr/sbin/rabbitmq-server"
		}
		bin = p
	}
	amqpPort, err := freePort()
	if err != nil {
		return nil, err
	}
	distPort, err := freePort()
	if err != nil {
		return nil, err
	}
	n := &Node{Name: fmt.Sprintf("gobridge-bench-%d@localhost", os.Getpid()), dir: dir, done: make(chan error, 1),
		URL: fmt.Sprintf("amqp://guest:guest@127.0.0.1:%d/", amqpPort)}
	for _, d := range []string{"mnesia", "log"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return nil, err
		}
	}
	// The AMQP 1.0 plugin (on the AMQP port) is for the amqp10-amqp10 route.
	if err := os.WriteFile(filepath.Join(dir, "enabled_plugins"), []byte("[rabbitmq_amqp1_0].\n"), 0o644); err != nil {
		return nil, err
	}
	if os.Geteuid() == 0 {
		if err := chownTree(dir, "rabbitmq"); err != nil {
			return nil, err
		}
	}
	n.cmd = exec.Command(bin)
	n.cmd.Env = append(os.Environ(),
		"RABBITMQ_NODENAME="+n.Name,
		"RABBITMQ_NODE_IP_ADDRESS=127.0.0.1",
		"RABBITMQ_NODE_PORT="+strconv.Itoa(amqpPort),
		"RABBITMQ_DIST_PORT="+strconv.Itoa(distPort),
		"RABBITMQ_MNESIA_BASE="+filepath.Join(dir, "mnesia"),
		"RABBITMQ_LOG_BASE="+filepath.Join(dir, "log"),
		"RABBITMQ_ENABLED_PLUGINS_FILE="+filepath.Join(dir, "enabled_plugins"),
		"RABBITMQ_PLUGINS_EXPAND_DIR="+filepath.Join(dir, "plugins-expand"),
		"RABBITMQ_FEATURE_FLAGS_FILE="+filepath.Join(dir, "feature_flags"),
		"RABBITMQ_PID_FILE="+filepath.Join(dir, "pid"),
		"RABBITMQ_CONFIG_FILE="+filepath.Join(dir, "none"),
		"RABBITMQ_ADVANCED_CONFIG_FILE="+filepath.Join(dir, "none-advanced.config"),
	)
	logf, err := os.Create(filepath.Join(dir, "server.out"))
	if err != nil {
		return nil, err
	}
	n.cmd.Stdout, n.cmd.Stderr = logf, logf
	if err := n.cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("amqpio: start rabbitmq-server: %w", err)
	}
	go func() { n.done <- n.cmd.Wait(); logf.Close() }()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(amqpPort))
	deadline := time.Now().Add(90 * time.Second)
	for {
		if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			_ = c.Close()
			return n, nil
		}
		select {
		case err := <-n.done:
			n.done <- err
			out, _ := os.ReadFile(filepath.Join(dir, "server.out"))
			return nil, fmt.Errorf("amqpio: rabbitmq-server exited at start (%v): %s", err, tailOf(out))
		case <-ctx.Done():
			n.Stop()
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			n.Stop()
			return nil, errors.New("amqpio: rabbitmq-server did not listen within 90s")
		}
	}
}

// PID is the node's Erlang VM (beam.smp), whose CPU is the broker's.
func (n *Node) PID() int { return bench.FindProcessWithEnv("beam.smp", "RABBITMQ_NODENAME="+n.Name) }

// Stop ends the node: SIGTERM to its VM (RabbitMQ shuts down cleanly on
// it) and to the start script, SIGKILL to both after 20s.
func (n *Node) Stop() {
	vm := n.PID()
	if vm != 0 {
		_ = syscall.Kill(vm, syscall.SIGTERM)
	}
	_ = n.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-n.done:
		n.done <- err
	case <-time.After(20 * time.Second):
		_ = n.cmd.Process.Kill()
		err := <-n.done
		n.done <- err
	}
	// The VM runs under another user and session, and may outlive the
	// script that started it.
	deadline := time.Now().Add(20 * time.Second)
	for vm != 0 && n.PID() == vm && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if vm != 0 && n.PID() == vm {
		_ = syscall.Kill(vm, syscall.SIGKILL)
	}
}

func chownTree(dir, name string) error {
	u, err := user.Lookup(name)
	if err != nil {
		return fmt.Errorf("amqpio: the %s user: %w", name, err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	})
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func tailOf(b []byte) string {
	if len(b) > 1500 {
		b = b[len(b)-1500:]
	}
	return string(b)
}
