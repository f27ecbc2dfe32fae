// Package mqttio is the harness's MQTT v5 side: a private Mosquitto with
// queues large enough that the broker itself never drops a message, the
// preparation of a subscriber's session, and the load generator.
package mqttio

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

// Broker is a Mosquitto process the harness started.
type Broker struct {
	Addr string // host:port
	cmd  *exec.Cmd
	done chan error
	log  string
}

// StartBroker runs mosquitto (bin, or found on PATH and in /usr/sbin) on a
// free port of 127.0.0.1 with its configuration and log in dir. Its queues
// are unbounded (max_queued_messages 0, the machine's Mosquitto keeps the
// default 1,000 and drops past it), persistence is off, and up to 1,000
// QoS 1/2 messages per client may be in flight.
func StartBroker(ctx context.Context, bin, dir string) (*Broker, error) {
	if bin == "" {
		p, err := exec.LookPath("mosquitto")
		if err != nil {
			p = "/usr/sbin/mosquitto"
		}
		bin = p
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	b := &Broker{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), done: make(chan error, 1),
		log: filepath.Join(dir, "mosquitto.log")}
	conf := fmt.Sprintf(`listener %d 127.0.0.1
allow_anonymous true
persistence false
max_queued_messages 0
max_queued_bytes 0
max_inflight_messages 1000
set_tcp_nodelay true
log_dest file %s
log_type error
log_type warning
`, port, b.log)
	if os.Geteuid() == 0 {
		conf += "user root\n" // else Mosquitto switches to its own user, who cannot write dir
	}
	cf := filepath.Join(dir, "mosquitto.conf")
	if err := os.WriteFile(cf, []byte(conf), 0o600); err != nil {
		return nil, err
	}
	b.cmd = exec.Command(bin, "-c", cf)
	if err := b.cmd.Start(); err != nil {
		return nil, fmt.Errorf("mqttio: start mosquitto: %w", err)
	}
	go func() { b.done <- b.cmd.Wait() }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", b.Addr, 200*time.Millisecond)
		if err == nil {
			_ = c.Close()
			return b, nil
		}
		select {
		case err := <-b.done:
			log, _ := os.ReadFile(b.log)
			return nil, fmt.Errorf("mqttio: mosquitto exited at start (%v): %s", err, log)
		case <-ctx.Done():
			b.Stop()
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			b.Stop()
			return nil, errors.New("mqttio: mosquitto did not listen within 10s")
		}
	}
}

// PID is the broker's process ID.
func (b *Broker) PID() int { return b.cmd.Process.Pid }

// Stop ends the broker and waits for it.
func (b *Broker) Stop() {
	_ = b.cmd.Process.Kill()
	<-b.done
	b.done <- nil // Stop may be called again
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
