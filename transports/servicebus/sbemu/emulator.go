// Package sbemu runs a small Azure Service Bus emulator for tests: a Python
// program on Debian's python3-qpid-proton that speaks enough of the Service
// Bus AMQP dialect for the unmodified azservicebus SDK (queues, topics with
// subscriptions, peek-lock, dead-lettering, sessions, scheduled messages).
// README.md lists what it emulates and what it does not.
package sbemu

import (
	"bufio"
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

//go:embed *.py
var scripts embed.FS

// Python is the interpreter the emulator runs on: Debian's, because that is
// where python3-qpid-proton installs (a pyenv python3 earlier on PATH does
// not see it).
const Python = "/usr/bin/python3"

// Defaults the broker applies when a field is zero.
const (
	DefaultLockDuration     = 30 * time.Second
	DefaultMaxDeliveryCount = 10
	DefaultMaxMessageSize   = 256 * 1024
)

// Subscription declares one subscription of a topic.
type Subscription struct {
	// Name is the subscription name.
	Name string
	// LockDuration is how long a peek-locked message (or a session) stays
	// locked; default 30s.
	LockDuration time.Duration
	// MaxDeliveryCount is the number of failed deliveries after which a
	// message moves to the dead-letter queue; default 10.
	MaxDeliveryCount int
	// RequiresSession makes the subscription session-enabled.
	RequiresSession bool
}

// Entity declares a queue, or a topic when Subscriptions is not empty. A
// topic takes no lock, delivery-count or session setting (Start refuses
// them): each subscription carries its own.
type Entity struct {
	// Name is the queue or topic name.
	Name string
	// LockDuration is how long a peek-locked message (or a session) stays
	// locked; default 30s.
	LockDuration time.Duration
	// MaxDeliveryCount is the number of failed deliveries after which a
	// message moves to the dead-letter queue; default 10.
	MaxDeliveryCount int
	// RequiresSession makes the queue session-enabled.
	RequiresSession bool
	// Subscriptions, when not empty, make the entity a topic.
	Subscriptions []Subscription
}

// Options configures Start.
type Options struct {
	// Entities are the queues and topics the emulated namespace holds.
	Entities []Entity
	// Logf, when set, receives every line the emulator writes to stderr.
	Logf func(format string, args ...any)
	// MaxMessageSize is the largest message (or batch) a sender may
	// transfer, announced on every sending link; default 256 KiB, the
	// Standard tier's limit.
	MaxMessageSize int
	// Port is the 127.0.0.1 port to listen on; 0 (the default) picks a
	// free one. Set it to the Addr port of a killed emulator to bring a
	// "restarted" broker back where clients expect it (with empty entities:
	// the emulator keeps nothing on disk).
	Port int
}

// Emulator is a running emulator process.
type Emulator struct {
	cmd     *exec.Cmd
	dir     string
	stdin   io.Closer
	addr    string
	done    chan struct{}
	waitErr error
	once    sync.Once
}

// ErrUnavailable is returned by Start when the Python interpreter or its
// proton binding is missing (scripts/ensure-sbemu.sh installs them).
var ErrUnavailable = errors.New("sbemu: " + Python + " with python3-qpid-proton is not available")

// Available reports whether the emulator can run here: /usr/bin/python3
// exists and imports proton.
func Available() bool {
	return exec.Command(Python, "-c", "import proton").Run() == nil
}

// Start runs the emulator on a free port of 127.0.0.1 and returns once it
// accepts connections. ctx bounds only the start; Close stops the process.
func Start(ctx context.Context, opts Options) (*Emulator, error) {
	if err := validate(opts); err != nil {
		return nil, err
	}
	if !Available() {
		return nil, ErrUnavailable
	}
	dir, err := os.MkdirTemp("", "sbemu-")
	if err != nil {
		return nil, fmt.Errorf("sbemu: temp dir: %w", err)
	}
	if err := writeFiles(dir, opts); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	cmd := exec.Command(Python, "-u", filepath.Join(dir, "sbemu.py"), filepath.Join(dir, "config.json"))
	cmd.Dir = dir
	// The emulator exits when its stdin closes: when this process dies
	// without calling Close, the emulator goes with it.
	stdin, err := cmd.StdinPipe()
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("sbemu: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("sbemu: %w", err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("sbemu: %w", err)
	}
	if err := cmd.Start(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("sbemu: start %s: %w", Python, err)
	}
	e := &Emulator{cmd: cmd, dir: dir, stdin: stdin, done: make(chan struct{})}
	tail := &lastLines{max: 20}
	logDone := make(chan struct{})
	go e.copyStderr(stderr, opts.Logf, tail, logDone)
	ready := make(chan string, 1)
	go readAddr(stdout, ready)
	go func() {
		<-logDone
		e.waitErr = cmd.Wait()
		close(e.done)
	}()
	select {
	case addr, ok := <-ready:
		if ok {
			e.addr = addr
			return e, nil
		}
		<-e.done
		err = fmt.Errorf("sbemu: emulator exited before listening (%v): %s", e.waitErr, tail.String())
	case <-e.done:
		err = fmt.Errorf("sbemu: emulator exited before listening (%v): %s", e.waitErr, tail.String())
	case <-ctx.Done():
		err = fmt.Errorf("sbemu: waiting for the emulator to listen: %w", ctx.Err())
	}
	_ = e.Kill()
	return nil, err
}

// readAddr sends the address from the "LISTENING host:port" line, then
// discards the rest of stdout. It closes ready without a value when stdout
// ends first.
func readAddr(r io.Reader, ready chan<- string) {
	sc := bufio.NewScanner(r)
	sent := false
	for sc.Scan() {
		if addr, ok := strings.CutPrefix(sc.Text(), "LISTENING "); ok && !sent {
			ready <- strings.TrimSpace(addr)
			sent = true
		}
	}
	if !sent {
		close(ready)
	}
}

func (e *Emulator) copyStderr(r io.Reader, logf func(string, ...any), tail *lastLines, done chan<- struct{}) {
	defer close(done)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		tail.add(sc.Text())
		if logf != nil {
			logf("sbemu: %s", sc.Text())
		}
	}
}

// ConnectionString is the connection string the azservicebus SDK takes: it
// names the development emulator, so the SDK dials plain AMQP with SASL
// ANONYMOUS.
func (e *Emulator) ConnectionString() string {
	return "Endpoint=sb://" + e.addr + ";SharedAccessKeyName=k;SharedAccessKey=dGVzdA==;UseDevelopmentEmulator=true"
}

// Addr is the host:port the emulator listens on.
func (e *Emulator) Addr() string { return e.addr }

// Close stops the emulator (SIGTERM, then SIGKILL after 5s) and waits for it.
func (e *Emulator) Close() error {
	return e.stop(syscall.SIGTERM, 5*time.Second)
}

// Kill stops the emulator abruptly with SIGKILL, as a crashed broker would
// stop, and waits for it.
func (e *Emulator) Kill() error {
	return e.stop(syscall.SIGKILL, 0)
}

func (e *Emulator) stop(sig syscall.Signal, grace time.Duration) error {
	var err error
	e.once.Do(func() {
		defer func() { _ = os.RemoveAll(e.dir) }()
		defer func() { _ = e.stdin.Close() }()
		select {
		case <-e.done:
			return
		default:
		}
		if sig != syscall.SIGKILL {
			_ = e.cmd.Process.Signal(sig)
			select {
			case <-e.done:
				return
			case <-time.After(grace):
			}
		}
		if kerr := e.cmd.Process.Kill(); kerr != nil && !errors.Is(kerr, os.ErrProcessDone) {
			err = fmt.Errorf("sbemu: kill: %w", kerr)
		}
		<-e.done
	})
	return err
}

// Done is closed once the emulator process has exited.
func (e *Emulator) Done() <-chan struct{} { return e.done }
