package amqp091

import (
	"context"
	"fmt"
	"sync"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// testDLQ keeps dead letters in memory for the runtime tests of this
// module, which must not depend on a store plugin.
type testDLQ struct {
	mu      sync.Mutex
	entries []ports.DLQEntry
}

func newTestDLQ() *testDLQ { return &testDLQ{} }

// Write implements ports.DLQWriter.
func (d *testDLQ) Write(_ context.Context, e ports.DLQEntry) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if e.ID == "" {
		e.ID = fmt.Sprintf("dlq-%d", len(d.entries)+1)
	}
	d.entries = append(d.entries, e)
	return nil
}

// List returns every entry written, oldest first, in one page.
func (d *testDLQ) List(context.Context, ports.DLQFilter, string, int) (ports.DLQPage, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return ports.DLQPage{Entries: append([]ports.DLQEntry(nil), d.entries...)}, nil
}
