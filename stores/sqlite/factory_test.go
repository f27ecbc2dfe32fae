package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/registry"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

func TestFactoryOpensUnderTheDataDir(t *testing.T) {
	dir := t.TempDir()
	f := Factory()
	cfg, err := f.Decode(map[string]any{"path": "nested/bridge.db", "synchronous": "NORMAL", "busy_timeout": "2s", "page_size": 4096})
	if err != nil {
		t.Fatal(err)
	}
	meter := telemetry.NewMemory()
	v, err := f.Build(t.Context(), cfg, registry.Settings{ID: "outbox", DataDir: dir, Meter: meter})
	if err != nil {
		t.Fatal(err)
	}
	s, ok := v.(*Store)
	if !ok {
		t.Fatalf("built %T", v)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	if _, ok := v.(ports.OutboxStore); !ok {
		t.Error("the sqlite store is not an outbox store")
	}
	if _, err := os.Stat(filepath.Join(dir, "nested", "bridge.db")); err != nil {
		t.Errorf("database file not created under the data dir: %v", err)
	}
	var pageSize int
	if err := s.w.conn.QueryRowContext(t.Context(), "PRAGMA page_size").Scan(&pageSize); err != nil {
		t.Fatal(err)
	}
	if pageSize != 4096 {
		t.Errorf("page_size: 4096 gave a file with %d-byte pages", pageSize)
	}
	persistN(t, s, "p", 1)
	if got := meter.Value("gobridge_sqlite_commits_total", "outbox"); got != 1 {
		t.Errorf("commits recorded under the store's ID = %v, want 1", got)
	}
	for _, bad := range []map[string]any{{}, {"path": "x.db", "synchronus": "FULL"}} {
		if _, err := f.Decode(bad); err == nil {
			t.Errorf("Decode(%v) accepted bad settings", bad)
		} else if !strings.Contains(err.Error(), "path") && !strings.Contains(err.Error(), "synchronus") {
			t.Errorf("Decode(%v) = %v; want the key named", bad, err)
		}
	}
}
