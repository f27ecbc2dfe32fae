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

// TestLeaseOutlivesTheProcessThatTookIt: a lease a process took and
// released is seen by the next process that opens the file, which takes
// it with a higher version. The two processes never have the file open at
// the same time (see lock_test.go).
func TestLeaseOutlivesTheProcessThatTookIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shared.db")
	ctx := t.Context()
	cmd, stdin, out := startChild(t, "lease", path)
	var childVersion uint64
	if line := nextLine(t, out); !strings.HasPrefix(line, "acquired ") {
		t.Fatalf("child said %q, want acquired", line)
	} else if _, err := fmt.Sscanf(line, "acquired %d", &childVersion); err != nil {
		t.Fatal(err)
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
	parent := openTestStore(t, path)
	l, ok, err := parent.Read(ctx, "drain")
	if err != nil || !ok || l.Token.Owner != "child" || l.Token.Version != childVersion {
		t.Errorf("parent Read = %+v, %v, %v; want the child's lease version %d", l, ok, err, childVersion)
	}
	tok, err := parent.Acquire(ctx, "drain", "parent", time.Minute)
	if err != nil || tok.Version <= childVersion {
		t.Errorf("parent Acquire after the child released = %+v, %v; want a version above %d", tok, err, childVersion)
	}
}

// TestLeaseOfKilledProcessExpires also shows that a killed process leaves
// no lock behind: the next Open succeeds at once.
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
	if err := now.Close(ctx); err != nil {
		t.Fatal(err)
	}
	// Another instance whose clock is past the child's one-hour TTL.
	later := openTestStore(t, path, WithClock(clock.NewFake(time.Now().Add(2*time.Hour))))
	if tok, err := later.Acquire(ctx, "drain", "parent", time.Minute); err != nil || tok.Version != 2 {
		t.Errorf("Acquire after the TTL = %+v, %v; want version 2", tok, err)
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
