package sqlite

import (
	"fmt"
	"testing"

	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// openTestStore opens a store that the test closes when it ends.
func openTestStore(t *testing.T, path string, opts ...Option) *Store {
	t.Helper()
	s, err := Open(t.Context(), path, opts...)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() { _ = s.Close(t.Context()) })
	return s
}

// testRecords builds n records of partition.
func testRecords(partition string, n int) []ports.OutboxRecord {
	out := make([]ports.OutboxRecord, n)
	for i := range out {
		env := messaging.NewEnvelope("orders.created", fmt.Appendf(nil, "%s-%d", partition, i))
		out[i] = ports.OutboxRecord{Partition: partition, RouteID: "r", BindingID: "b", Address: "q://x", Envelope: env}
	}
	return out
}

// persistN persists n records of partition, one per call.
func persistN(t *testing.T, s *Store, partition string, n int) []string {
	t.Helper()
	ids := make([]string, 0, n)
	for _, r := range testRecords(partition, n) {
		batch := []ports.OutboxRecord{r}
		if err := s.Persist(t.Context(), batch); err != nil {
			t.Fatalf("Persist: %v", err)
		}
		ids = append(ids, batch[0].ID)
	}
	return ids
}
