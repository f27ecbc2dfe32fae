package mqtt

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/itest"
)

// privateBroker is a Mosquitto process the test owns: its own port and
// config, persistence in a temporary directory, so it can be stopped and
// started again mid-stream.
type privateBroker struct {
	t    *testing.T
	addr string
	conf string
	log  string
	cmd  *exec.Cmd
	done chan struct{}
}

// startPrivateBroker starts Mosquitto on a free port; listenerOpts are
// config lines for its listener (TLS files, for instance). Without the
// binary the test is skipped, unless GOBRIDGE_REQUIRE_IT is set.
func startPrivateBroker(t *testing.T, listenerOpts ...string) *privateBroker {
	t.Helper()
	bin, err := exec.LookPath("mosquitto")
	if err != nil {
		for _, p := range []string{"/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto"} {
			if _, serr := os.Stat(p); serr == nil {
				bin, err = p, nil
				break
			}
		}
	}
	if err != nil {
		itest.Unavailable(t, "mosquitto binary not found")
	}
	dir := t.TempDir()
	addr := itest.FreeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	b := &privateBroker{t: t, addr: addr, conf: filepath.Join(dir, "mosquitto.conf"), log: filepath.Join(dir, "mosquitto.log")}
	conf := fmt.Sprintf("listener %s 127.0.0.1\n", port)
	anonymous := "allow_anonymous true\n"
	for _, l := range listenerOpts {
		conf += l + "\n"
		if strings.HasPrefix(l, "allow_anonymous") {
			anonymous = ""
		}
	}
	conf += anonymous + fmt.Sprintf("persistence true\npersistence_location %s/\nautosave_interval 0\nlog_dest file %s\nlog_type error\nlog_type warning\n",
		dir, b.log)
	if os.Geteuid() == 0 {
		// Run as root, Mosquitto would switch to its own user, which
		// cannot write to the test's temporary directory.
		conf += "user root\n"
	}
	if err := os.WriteFile(b.conf, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	b.bin(bin)
	b.start()
	t.Cleanup(b.stop)
	return b
}

func (b *privateBroker) bin(path string) { b.cmd = exec.Command(path, "-c", b.conf) }

// start runs the process and waits until it accepts connections.
func (b *privateBroker) start() {
	b.t.Helper()
	cmd := exec.Command(b.cmd.Path, b.cmd.Args[1:]...)
	if err := cmd.Start(); err != nil {
		b.t.Fatalf("start mosquitto: %v", err)
	}
	b.cmd, b.done = cmd, make(chan struct{})
	go func() { _ = cmd.Wait(); close(b.done) }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		if c, err := net.DialTimeout("tcp", b.addr, 100*time.Millisecond); err == nil {
			_ = c.Close()
			return
		}
		select {
		case <-b.done:
			log, _ := os.ReadFile(b.log)
			b.t.Fatalf("mosquitto exited at start:\n%s", log)
		case <-ctx.Done():
			b.t.Fatal("mosquitto did not listen within 10s")
		case <-tick.C:
		}
	}
}

// stop ends the process gracefully (SIGTERM, so it writes its persistence
// file) and waits for it.
func (b *privateBroker) stop() {
	if b.done == nil {
		return
	}
	select {
	case <-b.done:
		return
	default:
	}
	_ = b.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-b.done:
	case <-time.After(10 * time.Second):
		_ = b.cmd.Process.Kill()
		<-b.done
	}
}

func (b *privateBroker) url() string { return "mqtt://" + b.addr }
