package sqlite

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// TestSecondProcessCannotOpenTheStoreFile: while one process has the file
// open, a second one that opens it would drain the same records under the
// zero fencing token. Its Open is refused with an error that names the file
// and the holder's PID, and succeeds once the holder has gone.
func TestSecondProcessCannotOpenTheStoreFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shared.db")
	cmd, stdin, out := startChild(t, "lease", path)
	if line := nextLine(t, out); !strings.HasPrefix(line, "acquired ") {
		t.Fatalf("child said %q, want acquired", line)
	}

	s, err := Open(t.Context(), path)
	if err == nil {
		_ = s.Close(t.Context())
		t.Fatal("Open while another process has the file open succeeded")
	}
	if !errors.Is(err, fault.ErrUnavailable) {
		t.Errorf("Open while another process holds the file = %v, want UNAVAILABLE", err)
	}
	for _, want := range []string{path, "another gobridge process", fmt.Sprintf("PID %d", cmd.Process.Pid)} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal %q does not say %q", err, want)
		}
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
	s = openTestStore(t, path)
	if _, err := s.Claim(t.Context(), "p", ports.LeaseToken{}, 10); err != nil {
		t.Errorf("Claim once the other process closed the file: %v", err)
	}
}

// TestSecondStoreOnOneFileInProcessIsRefused: two Stores in one process on
// one file (two store roles configured with different settings) would
// also drain it twice. The second Open is a configuration error that says
// so; the first store is not disturbed, and once it is closed the file
// opens again.
func TestSecondStoreOnOneFileInProcessIsRefused(t *testing.T) {
	tests := []struct {
		name string
		opts []Option
	}{
		{"same settings", nil},
		{"other settings", []Option{WithSynchronous("NORMAL")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "store.db")
			first := openTestStore(t, path)
			second, err := Open(t.Context(), path, tt.opts...)
			if err == nil {
				_ = second.Close(t.Context())
				t.Fatal("a second Open of the file in this process succeeded")
			}
			if !errors.Is(err, fault.ErrInvalidConfig) {
				t.Errorf("second Open = %v, want INVALID_CONFIG", err)
			}
			for _, want := range []string{path, "this process", fmt.Sprintf("PID %d", os.Getpid())} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the refusal %q does not say %q", err, want)
				}
			}
			ids := persistN(t, first, "p", 1)
			if err := first.Close(t.Context()); err != nil {
				t.Fatal(err)
			}
			if got, err := os.ReadFile(lockPath(path)); err != nil || len(got) != 0 {
				t.Errorf("lock file after Close = %q, %v; want it empty", got, err)
			}
			again := openTestStore(t, path, tt.opts...)
			if got := claimAll(t, again, "p"); len(got) != 1 || got[0].ID != ids[0] {
				t.Errorf("records after reopening = %v, want the one persisted before", got)
			}
		})
	}
}

// TestLockFileNamesTheHolder: while a store is open its lock file holds the
// PID of the process, which is what the refusal quotes.
func TestLockFileNamesTheHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	openTestStore(t, path)
	got, err := os.ReadFile(lockPath(path))
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%d\n", os.Getpid()); string(got) != want {
		t.Errorf("lock file holds %q, want %q", got, want)
	}
}
