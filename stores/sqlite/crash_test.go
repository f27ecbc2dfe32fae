package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/itest"
	"github.com/gobridge-oss/gobridge/core/runtime"
	"github.com/gobridge-oss/gobridge/stores/sqlite"
)

// Environment of the crash test's child process.
const (
	envCrashChild = "GOBRIDGE_CRASH_CHILD"
	envCrashDB    = "GOBRIDGE_CRASH_DB"
	envCrashSock  = "GOBRIDGE_CRASH_SOCK"
)

// TestCrashRecovery runs a bridge in a child process that moves messages
// from a source queue through the SQLite outbox to a target, kills it with
// SIGKILL while it is ingesting and draining, several times, and then lets
// a last child finish. Every message must reach the target at least once;
// the number of duplicates is reported.
func TestCrashRecovery(t *testing.T) {
	itest.Short(t, "crash test")
	const messages, kills = 3000, 5
	dir := t.TempDir()
	db, sock := filepath.Join(dir, "bridge.db"), filepath.Join(dir, "broker.sock")
	ids := make([]string, messages)
	for i := range ids {
		ids[i] = fmt.Sprintf("m-%05d", i)
	}
	b, err := newLineBroker(sock, ids)
	if err != nil {
		t.Fatal(err)
	}
	defer b.ln.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for round := range kills {
		child := startCrashChild(t, db, sock)
		// Kill once the target has seen more messages than before: the
		// child is then ingesting and draining at the same time.
		goal := (round + 1) * messages / (kills + 2)
		waitBroker(ctx, t, b, func(distinct, _, _ int) bool { return distinct >= goal })
		_ = child.Process.Signal(syscall.SIGKILL)
		_ = child.Wait()
	}
	child := startCrashChild(t, db, sock)
	waitBroker(ctx, t, b, func(distinct, _, acked int) bool { return distinct == messages && acked == messages })
	// Duplicates persisted around a kill may still wait in the outbox:
	// let the last child drain them before stopping it.
	waitDrained(ctx, t, db)
	_ = child.Process.Signal(syscall.SIGTERM)
	if err := child.Wait(); err != nil {
		t.Errorf("last child did not stop cleanly: %v", err)
	}

	if miss := b.missing(ids); len(miss) > 0 {
		t.Fatalf("%d messages never reached the target, e.g. %v", len(miss), miss[:min(5, len(miss))])
	}
	distinct, dups, _ := b.stats()
	t.Logf("crash test: %d messages, %d SIGKILLs, %d delivered, %d duplicates (%.2f%%)",
		messages, kills, distinct, dups, 100*float64(dups)/float64(messages))

	store, err := sqlite.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close(context.Background())
	if n, err := store.Depth(context.Background(), "crash/target"); err != nil || n != 0 {
		t.Errorf("outbox depth after the last child = %d, %v; want 0", n, err)
	}
}

// TestCrashChild is the bridge process of TestCrashRecovery; it does
// nothing unless started by it.
func TestCrashChild(t *testing.T) {
	if os.Getenv(envCrashChild) != "1" {
		t.Skip("run by TestCrashRecovery")
	}
	ctx, stop := signalContext()
	defer stop()
	if err := runCrashChild(ctx, os.Getenv(envCrashDB), os.Getenv(envCrashSock)); err != nil {
		t.Fatal(err)
	}
}

func runCrashChild(ctx context.Context, db, sock string) error {
	store, err := sqlite.Open(ctx, db)
	if err != nil {
		return err
	}
	defer store.Close(context.Background())
	in, err := dialBroker(sock)
	if err != nil {
		return err
	}
	out, err := dialBroker(sock)
	if err != nil {
		return err
	}
	rt, err := runtime.New([]runtime.Route{{
		ID: "crash", ReceiverID: "broker", Receiver: &brokerReceiver{cl: in},
		DeliveryMode: runtime.SharedOutbox,
		Policy: runtime.Policy{
			MaxInFlight: 64,
			Backoff:     runtime.Backoff{Initial: 10 * time.Millisecond, Max: 50 * time.Millisecond},
			Outbox: runtime.OutboxPolicy{Strategy: runtime.DrainStrategy{
				Type: runtime.AdaptiveBackoff, MinInterval: time.Millisecond, MaxInterval: 20 * time.Millisecond}},
		},
		Bindings: []runtime.Binding{{ID: "target", Sender: &brokerSender{cl: out}}},
	}}, runtime.Options{Outbox: store, DLQ: store, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return err
	}
	return rt.Run(ctx)
}

func startCrashChild(t *testing.T, db, sock string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), envCrashChild+"=1", envCrashDB+"="+db, envCrashSock+"="+sock)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// waitBroker blocks until cond holds for the broker's counters.
func waitBroker(ctx context.Context, t *testing.T, b *lineBroker, cond func(distinct, dups, acked int) bool) {
	t.Helper()
	for {
		if cond(b.stats()) {
			return
		}
		select {
		case <-b.changed:
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			d, dups, acked := b.stats()
			t.Fatalf("timed out: %d delivered, %d duplicates, %d acked", d, dups, acked)
		}
	}
}

// waitDrained polls the outbox depth until the child has delivered
// everything in it. The child holds the store's lock, so it reads the file
// through a plain read-only SQLite connection, as an operator's sqlite3
// shell would.
func waitDrained(ctx context.Context, t *testing.T, db string) {
	t.Helper()
	conn, err := sql.Open("sqlite3", "file:"+db+"?mode=ro&_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for {
		var n int
		err := conn.QueryRowContext(ctx, "SELECT count(*) FROM outbox WHERE partition = ?", "crash/target").Scan(&n)
		if err == nil && n == 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("outbox still holds %d records (%v)", n, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// signalContext is cancelled by SIGTERM or SIGINT.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
}
