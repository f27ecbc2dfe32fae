package sqlite

import (
	"bufio"
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

	"github.com/gobridge-oss/gobridge/core/clock"
	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// The helper process: when the test binary runs with childEnv set, the
// TestHelperProcess "test" becomes a child that acts on the store named
// by childPathEnv and never returns to the test framework.
const (
	childEnv     = "GOBRIDGE_SQLITE_CHILD"
	childPathEnv = "GOBRIDGE_SQLITE_CHILD_PATH"
)

func TestHelperProcess(t *testing.T) {
	role := os.Getenv(childEnv)
	if role == "" {
		t.Skip("runs only as a helper process")
	}
	err := runChild(role, os.Getenv(childPathEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

func runChild(role, path string) error {
	ctx := context.Background()
	s, err := Open(ctx, path)
	if err != nil {
		return err
	}
	defer s.Close(ctx)
	switch role {
	case "lease":
		// Hold the lease until stdin closes, then release it.
		tok, err := s.Acquire(ctx, "drain", "child", time.Hour)
		if err != nil {
			return err
		}
		fmt.Printf("acquired %d\n", tok.Version)
		_, _ = io.Copy(io.Discard, os.Stdin)
		if err := s.Release(ctx, "drain", tok); err != nil {
			return err
		}
		fmt.Println("released")
		return nil
	case "persist":
		// Persist and report each acknowledged record until killed.
		for {
			recs := testRecords("crash", 1)
			if err := s.Persist(ctx, recs); err != nil {
				return err
			}
			fmt.Printf("acked %s\n", recs[0].ID)
		}
	}
	return fmt.Errorf("unknown role %q", role)
}

// startChild runs the test binary as a helper with role on path.
func startChild(t *testing.T, role, path string) (*exec.Cmd, io.WriteCloser, *bufio.Scanner) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), childEnv+"="+role, childPathEnv+"="+path)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd, stdin, bufio.NewScanner(stdout)
}

// nextLine reads the child's next line or fails the test.
func nextLine(t *testing.T, out *bufio.Scanner) string {
	t.Helper()
	if !out.Scan() {
		t.Fatalf("child ended early: %v", out.Err())
	}
	return out.Text()
}

func TestLeaseAcrossProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shared.db")
	parent := openTestStore(t, path)
	ctx := t.Context()
	cmd, stdin, out := startChild(t, "lease", path)
	var childVersion uint64
	if line := nextLine(t, out); !strings.HasPrefix(line, "acquired ") {
		t.Fatalf("child said %q, want acquired", line)
	} else if _, err := fmt.Sscanf(line, "acquired %d", &childVersion); err != nil {
		t.Fatal(err)
	}
	if tok, err := parent.Acquire(ctx, "drain", "parent", time.Minute); !errors.Is(err, fault.ErrAlreadyExists) {
		t.Fatalf("parent Acquire while the child holds the lease = %+v, %v; want ALREADY_EXISTS", tok, err)
	}
	l, ok, err := parent.Read(ctx, "drain")
	if err != nil || !ok || l.Token.Owner != "child" || l.Token.Version != childVersion {
		t.Errorf("parent Read = %+v, %v, %v; want the child's lease version %d", l, ok, err, childVersion)
	}
	if err := stdin.Close(); err != nil {
		t.Fatal(err)
	}
	if line := nextLine(t, out); line != "released" {
		t.Fatalf("child said %q, want released", line)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v", err)
	}
	tok, err := parent.Acquire(ctx, "drain", "parent", time.Minute)
	if err != nil || tok.Version <= childVersion {
		t.Errorf("parent Acquire after the child released = %+v, %v; want a version above %d", tok, err, childVersion)
	}
}

func TestLeaseOfKilledProcessExpires(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shared.db")
	cmd, _, out := startChild(t, "lease", path)
	if line := nextLine(t, out); !strings.HasPrefix(line, "acquired ") {
		t.Fatalf("child said %q, want acquired", line)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	ctx := t.Context()
	now := openTestStore(t, path)
	if _, err := now.Acquire(ctx, "drain", "parent", time.Minute); !errors.Is(err, fault.ErrAlreadyExists) {
		t.Errorf("Acquire of the killed child's unexpired lease = %v, want ALREADY_EXISTS", err)
	}
	// Another instance whose clock is past the child's one-hour TTL.
	later := openTestStore(t, path, WithClock(clock.NewFake(time.Now().Add(2*time.Hour))))
	if tok, err := later.Acquire(ctx, "drain", "parent", time.Minute); err != nil || tok.Version != 2 {
		t.Errorf("Acquire after the TTL = %+v, %v; want version 2", tok, err)
	}
}

func TestLeaseTwoStoresOneFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shared.db")
	fake := clock.NewFake(time.Now())
	a := openTestStore(t, path, WithClock(fake))
	b := openTestStore(t, path, WithClock(fake))
	ctx := t.Context()
	tokA, err := a.Acquire(ctx, "drain", "a", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Acquire(ctx, "drain", "b", time.Minute); !errors.Is(err, fault.ErrAlreadyExists) {
		t.Errorf("second store Acquire = %v, want ALREADY_EXISTS", err)
	}
	fake.Advance(time.Minute)
	tokB, err := b.Acquire(ctx, "drain", "b", time.Minute)
	if err != nil || tokB.Version != tokA.Version+1 {
		t.Fatalf("Acquire after expiry = %+v, %v; want version %d", tokB, err, tokA.Version+1)
	}
	if err := a.Renew(ctx, "drain", tokA, time.Minute); !errors.Is(err, fault.ErrStaleFencingToken) {
		t.Errorf("Renew by the old holder through its own store = %v, want STALE_FENCING_TOKEN", err)
	}
	// Fencing is shared too: b's token raises the mark a must respect.
	if err := a.Persist(ctx, testRecords("p", 2)); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Claim(ctx, "p", tokB, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Claim(ctx, "p", tokA, 1); !errors.Is(err, fault.ErrStaleFencingToken) {
		t.Errorf("Claim with the old token through the other store = %v, want STALE_FENCING_TOKEN", err)
	}
	// Concurrent acquirers through both stores: exactly one wins.
	fake.Advance(time.Minute)
	results := make(chan error, 8)
	for i := range 8 {
		s := []*Store{a, b}[i%2]
		go func() {
			_, err := s.Acquire(ctx, "race", fmt.Sprint("owner-", i), time.Minute)
			results <- err
		}()
	}
	wins := 0
	for range 8 {
		switch err := <-results; {
		case err == nil:
			wins++
		case !errors.Is(err, fault.ErrAlreadyExists):
			t.Errorf("contender: %v", err)
		}
	}
	if wins != 1 {
		t.Errorf("%d contenders won the lease, want 1", wins)
	}
}

func TestAckedRecordsSurviveKill(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crash.db")
	var acked []string
	for round := range 3 {
		cmd, _, out := startChild(t, "persist", path)
		for range 50 + 25*round {
			line := nextLine(t, out)
			id, ok := strings.CutPrefix(line, "acked ")
			if !ok {
				t.Fatalf("child said %q", line)
			}
			acked = append(acked, id)
		}
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
	}
	s := openTestStore(t, path)
	n, err := s.Depth(t.Context(), "crash")
	if err != nil {
		t.Fatal(err)
	}
	got := make(map[string]bool, n)
	for _, r := range claimAll(t, s, "crash") {
		got[r.ID] = true
	}
	for _, id := range acked {
		if !got[id] {
			t.Errorf("acknowledged record %s was lost", id)
		}
	}
	t.Logf("%d acknowledged records all present among %d stored", len(acked), n)
}

func claimAll(t *testing.T, s *Store, partition string) []ports.OutboxRecord {
	t.Helper()
	recs, err := s.Claim(t.Context(), partition, ports.LeaseToken{}, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}
