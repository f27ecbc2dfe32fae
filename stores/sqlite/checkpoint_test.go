package sqlite

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// TestCheckpointerKeepsTheWALBounded writes far more than the WAL limit in
// many small commits and checks that the checkpointer ran, reset the WAL,
// and kept it from growing with the data.
func TestCheckpointerKeepsTheWALBounded(t *testing.T) {
	const limit = 64 // pages
	path := filepath.Join(t.TempDir(), "ckpt.db")
	s := openTestStore(t, path, WithCheckpoint(time.Millisecond, limit), WithSynchronous("OFF"))
	big := make([]byte, 8<<10) // two pages per record
	for i := range 400 {
		recs := testRecords("p", 1)
		recs[0].Envelope.SetPayload(append([]byte{byte(i)}, big...))
		if err := s.Persist(t.Context(), []ports.OutboxRecord{recs[0]}); err != nil {
			t.Fatalf("Persist %d: %v", i, err)
		}
	}
	// Once the writes stop, the next checkpoint copies everything and,
	// the WAL being past the limit, empties it.
	deadline := time.Now().Add(10 * time.Second)
	for {
		fi, err := os.Stat(path + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		if s.Stats().WALRestarts > 0 && fi.Size() <= limit*4096 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("WAL still %d bytes after the writes stopped; stats %+v", fi.Size(), s.Stats())
		}
		time.Sleep(time.Millisecond)
	}
	if d, err := s.Depth(t.Context(), "p"); err != nil || d != 400 {
		t.Errorf("Depth = %d, %v; want 400", d, err)
	}
}

func TestCheckpointOptionsValidated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.db")
	for _, o := range []Option{WithCheckpoint(0, 10), WithCheckpoint(time.Second, 0)} {
		if _, err := Open(t.Context(), path, o); err == nil {
			t.Errorf("Open accepted a bad checkpoint option")
		}
	}
}
