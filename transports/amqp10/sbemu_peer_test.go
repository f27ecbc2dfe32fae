package amqp10

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	amqp "github.com/Azure/go-amqp"

	"github.com/gobridge-oss/gobridge/core/itest"
)

// The project's Service Bus emulator (transports/servicebus/sbemu) is a
// Python program on Debian's python3-qpid-proton: an AMQP 1.0 stack other
// than RabbitMQ's, and one whose queues redeliver. A delivery disposed
// modified with delivery-failed comes back with delivery-count + 1,
// released comes back with the count unchanged, rejected goes to
// QUEUE/$DeadLetterQueue, and a lock that expires counts as a failed
// delivery. A plugin module may not import another, so the tests start it
// through scripts/sbemu.sh rather than through its Go package.

// sbemuQueue declares a queue of the emulator.
type sbemuQueue struct {
	name string
	// lock is the peek-lock duration; an unsettled delivery comes back,
	// counted as failed, once it expires. 0 means the emulator's 30s.
	lock time.Duration
	// maxDeliveries is the failed deliveries after which the emulator
	// dead-letters a message itself. 0 means the emulator's 10.
	maxDeliveries int
}

// spec is the queue as scripts/sbemu.sh takes it:
// NAME[:LOCK_MS[:MAX_DELIVERY_COUNT]].
func (q sbemuQueue) spec() string {
	lock, maxDeliveries := q.lock.Milliseconds(), q.maxDeliveries
	if lock == 0 {
		lock = 30000
	}
	if maxDeliveries == 0 {
		maxDeliveries = 10
	}
	return fmt.Sprintf("%s:%d:%d", q.name, lock, maxDeliveries)
}

// sbemuInternalError starts the line the emulator logs when one of its
// handlers failed; such a line fails the test.
const sbemuInternalError = "internal error in "

// sbemuPeer starts the emulator on a free port with queues, through
// scripts/sbemu.sh run, and stops it when t ends (the emulator also exits
// when this process dies: it watches its stdin). The peer's queue function
// hands out the declared queues in order.
func sbemuPeer(t testing.TB, queues ...sbemuQueue) peer {
	t.Helper()
	script, _ := filepath.Abs("../../scripts/sbemu.sh")
	var why bytes.Buffer
	check := exec.Command(script, "check")
	check.Stderr = &why
	if err := check.Run(); err != nil {
		itest.Unavailable(t, "the Service Bus emulator cannot run (%v): %s", err, strings.TrimSpace(why.String()))
	}
	args := []string{"run"}
	for _, q := range queues {
		args = append(args, q.spec())
	}
	cmd := exec.Command(script, args...)
	cmd.Env = append(os.Environ(), "GOBRIDGE_SBEMU_DIR="+t.TempDir())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", script, err)
	}
	logged := make(chan struct{})
	go func() {
		defer close(logged)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), sbemuInternalError) {
				t.Errorf("Service Bus emulator bug: %s", sc.Text())
			} else {
				t.Logf("sbemu: %s", sc.Text())
			}
		}
	}()
	listening := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if addr, ok := strings.CutPrefix(sc.Text(), "LISTENING "); ok {
				listening <- strings.TrimSpace(addr)
			}
		}
		close(listening)
	}()
	exited := make(chan error, 1)
	go func() {
		<-logged
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		// Closing stdin is the emulator's signal to exit.
		_ = stdin.Close()
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	var addr string
	select {
	case a, ok := <-listening:
		if !ok {
			t.Fatalf("the Service Bus emulator exited before listening")
		}
		addr = a
	case <-time.After(15 * time.Second):
		t.Fatalf("the Service Bus emulator did not listen within 15s")
	}
	cfg := SessionConfig{URL: "amqp://" + addr}
	probe(t, cfg, "the Service Bus emulator")
	next := 0
	return peer{name: "sbemu", cfg: cfg, queue: func(t testing.TB) string {
		t.Helper()
		if next >= len(queues) {
			t.Fatalf("the emulator was started with %d queues; all are in use", len(queues))
		}
		next++
		return queues[next-1].name
	}}
}

// sbemuQueues declares n queues named prefix0 … prefixN-1 with the same
// settings.
func sbemuQueues(prefix string, n int, lock time.Duration, maxDeliveries int) []sbemuQueue {
	qs := make([]sbemuQueue, n)
	for i := range qs {
		qs[i] = sbemuQueue{name: fmt.Sprintf("%s%d", prefix, i), lock: lock, maxDeliveries: maxDeliveries}
	}
	return qs
}

// sbemuCounts is what the emulator holds for a queue or dead-letter queue.
type sbemuCounts struct {
	Active, Locked, DeadLetter int
}

// sbemuStats asks the emulator's own $sbemu node (operation sbemu:stats)
// what path holds: a queue name or NAME/$DeadLetterQueue.
func sbemuStats(ctx context.Context, p peer, path string) (sbemuCounts, error) {
	conn, err := amqp.Dial(ctx, p.cfg.URL, &amqp.ConnOptions{SASLType: amqp.SASLTypeAnonymous()})
	if err != nil {
		return sbemuCounts{}, err
	}
	defer func() { _ = conn.Close() }()
	sess, err := conn.NewSession(ctx, nil)
	if err != nil {
		return sbemuCounts{}, err
	}
	const replyTo = "gobridge-amqp10-test"
	rcv, err := sess.NewReceiver(ctx, "$sbemu", &amqp.ReceiverOptions{TargetAddress: replyTo, Credit: 1})
	if err != nil {
		return sbemuCounts{}, err
	}
	snd, err := sess.NewSender(ctx, "$sbemu", nil)
	if err != nil {
		return sbemuCounts{}, err
	}
	reply := replyTo
	req := &amqp.Message{
		Properties:            &amqp.MessageProperties{MessageID: "stats", ReplyTo: &reply},
		ApplicationProperties: map[string]any{"operation": "sbemu:stats"},
		Value:                 map[string]any{"entity": path},
	}
	if err := snd.Send(ctx, req, nil); err != nil {
		return sbemuCounts{}, err
	}
	resp, err := rcv.Receive(ctx, nil)
	if err != nil {
		return sbemuCounts{}, err
	}
	if status, _ := resp.ApplicationProperties["status-code"].(int32); status != 200 {
		return sbemuCounts{}, fmt.Errorf("sbemu:stats %s: status %d %v", path, status, resp.ApplicationProperties["status-description"])
	}
	v, _ := resp.Value.(map[string]any)
	get := func(k string) int { n, _ := v[k].(int64); return int(n) }
	return sbemuCounts{Active: get("active"), Locked: get("locked"), DeadLetter: get("dead-letter")}, nil
}

// waitStats polls sbemuStats for path until cond holds, failing t when ctx
// ends first.
func waitStats(ctx context.Context, t testing.TB, p peer, path string, cond func(sbemuCounts) bool) sbemuCounts {
	t.Helper()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		c, err := sbemuStats(ctx, p, path)
		if err == nil && cond(c) {
			return c
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatalf("%s: stuck at %+v (last error %v)", path, c, err)
		}
	}
}

// readOne reads one message from addr with a plain go-amqp receiver and
// accepts it.
func readOne(ctx context.Context, t testing.TB, p peer, addr string) *amqp.Message {
	t.Helper()
	raw := newRawClient(t, p)
	r, err := raw.sess.NewReceiver(ctx, addr, &amqp.ReceiverOptions{Credit: 1})
	if err != nil {
		t.Fatalf("attach to %s: %v", addr, err)
	}
	m, err := r.Receive(ctx, nil)
	if err != nil {
		t.Fatalf("receive from %s: %v", addr, err)
	}
	if err := r.AcceptMessage(ctx, m); err != nil && !errors.Is(err, io.EOF) {
		t.Fatalf("accept on %s: %v", addr, err)
	}
	return m
}
