package memtransport_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/ports"
)

func TestDLQKeepsEntriesInOrder(t *testing.T) {
	d := memtransport.NewDLQ()
	for _, id := range []string{"", "given"} {
		if err := d.Write(t.Context(), ports.DLQEntry{ID: id, RouteID: "r"}); err != nil {
			t.Fatal(err)
		}
	}
	page, err := d.List(t.Context(), ports.DLQFilter{}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range page.Entries {
		ids = append(ids, e.ID)
	}
	if diff := cmp.Diff([]string{"dlq-1", "given"}, ids); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
}
