package sqlite

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/itest"
)

// wantOpenError checks that Open fails with code and that the message
// names the path and contains every fragment.
func wantOpenError(t *testing.T, err error, code error, path string, fragments ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("Open succeeded, want an error naming %s", path)
	}
	if !errors.Is(err, code) {
		t.Errorf("Open error %v, want %v", err, code)
	}
	msg := err.Error()
	for _, f := range append([]string{path}, fragments...) {
		if !strings.Contains(msg, f) {
			t.Errorf("Open error %q does not mention %q", msg, f)
		}
	}
}

func TestOpenRefusesGarbage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "garbage.db")
	junk := make([]byte, 64<<10)
	if _, err := rand.Read(junk); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, junk, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(t.Context(), path)
	wantOpenError(t, err, fault.ErrInvalidConfig, path, "not a database")
	after, rerr := os.ReadFile(path)
	if rerr != nil || !bytes.Equal(after, junk) {
		t.Errorf("the refused file changed (read error %v)", rerr)
	}
}

func TestOpenRefusesCorruptPages(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	s := openTestStore(t, path)
	persistN(t, s, "p", 200)
	if err := s.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	// Keep the header (page 1) valid and overwrite the pages after it.
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) < 3*4096 {
		t.Fatalf("database file of %d bytes is too small to corrupt", len(raw))
	}
	for i := 4096; i < len(raw); i++ {
		raw[i] = byte(i * 7)
	}
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Open(t.Context(), path)
	wantOpenError(t, err, fault.ErrInvalidConfig, path)
	if msg := err.Error(); !strings.Contains(msg, "corrupt") && !strings.Contains(msg, "malformed") {
		t.Errorf("Open error %q says nothing about corruption", msg)
	}
}

// makeUnwritable makes dir refuse new files, also for root (through the
// immutable attribute), or skips the test.
func makeUnwritable(t *testing.T, dir string) {
	t.Helper()
	if os.Geteuid() != 0 {
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.Chmod(dir, 0o755) })
		return
	}
	if err := exec.Command("chattr", "+i", dir).Run(); err != nil {
		itest.Unavailable(t, "running as root and chattr +i is unavailable: %v", err)
	}
	t.Cleanup(func() { _ = exec.Command("chattr", "-i", dir).Run() })
}

func TestOpenUnwritableDirectory(t *testing.T) {
	t.Run("NewFile", func(t *testing.T) {
		dir := t.TempDir()
		makeUnwritable(t, dir)
		path := filepath.Join(dir, "store.db")
		_, err := Open(t.Context(), path)
		wantOpenError(t, err, fault.ErrInvalidConfig, path, "writable")
	})
	t.Run("ExistingFile", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "store.db")
		s := openTestStore(t, path)
		persistN(t, s, "p", 3)
		if err := s.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
		makeUnwritable(t, dir)
		_, err := Open(t.Context(), path)
		wantOpenError(t, err, fault.ErrInvalidConfig, path, "writable")
	})
}

func TestOpenRejectsBadPaths(t *testing.T) {
	dir := t.TempDir()
	for _, path := range []string{"", ":memory:", "file:x.db?mode=memory", dir, filepath.Join(dir, "missing", "store.db")} {
		if s, err := Open(t.Context(), path); !errors.Is(err, fault.ErrInvalidConfig) {
			if s != nil {
				_ = s.Close(t.Context())
			}
			t.Errorf("Open(%q) = %v, want INVALID_CONFIG", path, err)
		}
	}
}

func TestOpenValidatesOptions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	for name, opt := range map[string]Option{
		"synchronous":   WithSynchronous("EXTRA"),
		"stale age":     WithStaleClaimAge(0),
		"busy timeout":  WithBusyTimeout(-time.Second),
		"batch":         WithMaxBatchOps(0),
		"linger":        WithCommitLinger(-time.Millisecond),
		"read conns":    WithReadConns(0),
		"startup check": WithStartupCheck("sometimes"),
		"clock":         WithClock(nil),
		"page size 0":   WithPageSize(0),
		"page size odd": WithPageSize(3000),
		"page size big": WithPageSize(1 << 17),
	} {
		if s, err := Open(t.Context(), path, opt); !errors.Is(err, fault.ErrInvalidConfig) {
			if s != nil {
				_ = s.Close(t.Context())
			}
			t.Errorf("%s: Open = %v, want INVALID_CONFIG", name, err)
		}
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("invalid options created the file (stat: %v)", err)
	}
}

func TestOpenPageSize(t *testing.T) {
	// A new file gets the configured page size; an existing one keeps
	// its own, whatever the option says, and its records stay readable.
	dir := t.TempDir()
	tests := []struct {
		name, file string
		opts       []Option
		want       int
	}{
		{"new file, default", "default.db", nil, DefaultPageSize},
		{"new file, 4096", "small.db", []Option{WithPageSize(4096)}, 4096},
		{"existing file, other option", "small.db", []Option{WithPageSize(16384)}, 4096},
		{"existing file, default", "small.db", nil, 4096},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Open(t.Context(), filepath.Join(dir, tt.file), tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close(t.Context())
			var got int
			if err := s.w.conn.QueryRowContext(t.Context(), "PRAGMA page_size").Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("page size %d, want %d", got, tt.want)
			}
			persistN(t, s, "p", 1)
		})
	}
	s := openTestStore(t, filepath.Join(dir, "small.db"))
	wantDepthIs(t, s, "p", 3)
}

func TestOpenSynchronousLevels(t *testing.T) {
	for level, want := range map[string]int{"": 2, "FULL": 2, "normal": 1, "OFF": 0} {
		path := filepath.Join(t.TempDir(), "store.db")
		var opts []Option
		if level != "" {
			opts = append(opts, WithSynchronous(level))
		}
		s := openTestStore(t, path, opts...)
		var got int
		var mode string
		if err := s.w.conn.QueryRowContext(t.Context(), "PRAGMA synchronous").Scan(&got); err != nil {
			t.Fatal(err)
		}
		if err := s.w.conn.QueryRowContext(t.Context(), "PRAGMA journal_mode").Scan(&mode); err != nil {
			t.Fatal(err)
		}
		if got != want || mode != "wal" {
			t.Errorf("WithSynchronous(%q): synchronous %d, journal mode %q; want %d, wal", level, got, mode, want)
		}
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	s := openTestStore(t, path)
	if err := s.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	execRaw(t, path, "PRAGMA user_version = 99")
	_, err := Open(t.Context(), path)
	wantOpenError(t, err, fault.ErrInvalidConfig, path, "schema version 99 is newer")
}

func TestOpenRefusesForeignDatabase(t *testing.T) {
	t.Run("OtherApplicationID", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "other.db")
		execRaw(t, path, "PRAGMA application_id = 1234")
		_, err := Open(t.Context(), path)
		wantOpenError(t, err, fault.ErrInvalidConfig, path, "not a gobridge store")
	})
	t.Run("OtherTables", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "other.db")
		execRaw(t, path, "CREATE TABLE invoices (id INTEGER PRIMARY KEY)")
		_, err := Open(t.Context(), path)
		wantOpenError(t, err, fault.ErrInvalidConfig, path, "not a gobridge store")
	})
}

func TestMigrationsRecordedOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	for range 2 {
		s := openTestStore(t, path)
		if err := s.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	db := openRaw(t, path)
	var version, rows int
	if err := db.QueryRow("PRAGMA user_version").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow("SELECT count(*) FROM schema_migrations").Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if version != schemaVersion() || rows != len(migrations()) {
		t.Errorf("user_version %d with %d recorded migrations, want %d and %d", version, rows, schemaVersion(), len(migrations()))
	}
}

func TestCloseIsIdempotent(t *testing.T) {
	s := openTestStore(t, filepath.Join(t.TempDir(), "store.db"))
	for range 2 {
		if err := s.Close(context.Background()); err != nil {
			t.Fatalf("Close: %v", err)
		}
	}
	if err := s.Persist(t.Context(), testRecords("p", 1)); !errors.Is(err, fault.ErrUnavailable) {
		t.Errorf("Persist after Close = %v, want UNAVAILABLE", err)
	}
	if _, err := s.Depth(t.Context(), "p"); err == nil {
		t.Error("Depth after Close succeeded")
	}
}

// openRaw opens path with the bare driver, for tests that tamper with a
// file.
func openRaw(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open(driverName, "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func execRaw(t *testing.T, path, stmt string) {
	t.Helper()
	db := openRaw(t, path)
	if _, err := db.Exec(stmt); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestOpenPathWithURICharacters(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "odd #dir%20")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "store?.db")
	s := openTestStore(t, path)
	persistN(t, s, "p", 1)
	if err := s.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("the store is not at the path it was given: %v", err)
	}
	again := openTestStore(t, path)
	wantDepthIs(t, again, "p", 1)
}
