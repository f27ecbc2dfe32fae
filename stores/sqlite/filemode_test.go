package sqlite

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/registry"
)

// modes returns the permission bits of each path, "missing" for one that
// does not exist.
func modes(paths ...string) map[string]string {
	out := map[string]string{}
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			out[filepath.Base(p)] = "missing"
			continue
		}
		out[filepath.Base(p)] = fi.Mode().Perm().String()
	}
	return out
}

// TestStoreFilesAreOwnerOnly: the database, its -wal and -shm files, the
// lock file and the data directory hold every message the bridge took, so
// only the process's user may read them, whatever the umask and whoever
// created the data directory, and an existing file left readable by others
// is tightened.
func TestStoreFilesAreOwnerOnly(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	for _, tc := range []struct {
		name    string
		prepare func(t *testing.T, dataDir, db string)
	}{
		{"new data dir and file", func(*testing.T, string, string) {}},
		{"data dir made 0755 by someone else", func(t *testing.T, dataDir, _ string) {
			if err := os.MkdirAll(dataDir, 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{"existing database file 0644", func(t *testing.T, dataDir, db string) {
			if err := os.MkdirAll(dataDir, 0o755); err != nil {
				t.Fatal(err)
			}
			s, err := Open(t.Context(), db)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{db, db + "-wal", db + "-shm"} {
				if err := os.Chmod(p, 0o644); err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dataDir := filepath.Join(t.TempDir(), "data")
			db := filepath.Join(dataDir, "bridge.db")
			tc.prepare(t, dataDir, db)
			f := Factory()
			cfg, err := f.Decode(map[string]any{"path": "bridge.db"})
			if err != nil {
				t.Fatal(err)
			}
			v, err := f.Build(t.Context(), cfg, registry.Settings{ID: "outbox", DataDir: dataDir})
			if err != nil {
				t.Fatal(err)
			}
			s := v.(*Store)
			t.Cleanup(func() { _ = s.Close(context.Background()) })
			// A write makes sure the -wal and -shm files exist.
			if err := s.Persist(t.Context(), []ports.OutboxRecord{{Partition: "p", RouteID: "r", BindingID: "b",
				Envelope: messaging.NewEnvelope("s", []byte("secret order"))}}); err != nil {
				t.Fatal(err)
			}
			want := map[string]string{"data": fs.FileMode(0o700).String()}
			for _, n := range []string{"bridge.db", "bridge.db-wal", "bridge.db-shm", "bridge.db.lock"} {
				want[n] = fs.FileMode(0o600).String()
			}
			got := modes(dataDir, db, db+"-wal", db+"-shm", db+".lock")
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("permissions (-want +got):\n%s", diff)
			}
		})
	}
}
