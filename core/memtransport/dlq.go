package memtransport

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// DLQ keeps dead letters in memory for tests and benchmarks of route
// runtimes: a plugin's tests use it instead of importing a store plugin.
// It is safe for concurrent use; the zero value is ready.
type DLQ struct {
	mu      sync.Mutex
	entries []ports.DLQEntry
}

// NewDLQ returns an empty DLQ.
func NewDLQ() *DLQ { return &DLQ{} }

// Write implements ports.DLQWriter; it fills an empty ID.
func (d *DLQ) Write(_ context.Context, e ports.DLQEntry) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if e.ID == "" {
		e.ID = fmt.Sprintf("dlq-%d", len(d.entries)+1)
	}
	d.entries = append(d.entries, e)
	return nil
}

// List returns every entry written, oldest first, in one page; the filter,
// cursor and limit are ignored.
func (d *DLQ) List(context.Context, ports.DLQFilter, string, int) (ports.DLQPage, error) {
	return ports.DLQPage{Entries: d.Entries()}, nil
}

// Entries returns a copy of every entry written, oldest first.
func (d *DLQ) Entries() []ports.DLQEntry {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.entries)
}
