package servicetest

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPostedDocumentGetsEveryProblemAtOnce: the admin API's validation of
// a posted document lists an unknown key and a plugin's settings problem
// together, as `gobridge validate` does, instead of hiding the second
// until the first is fixed.
func TestPostedDocumentGetsEveryProblemAtOnce(t *testing.T) {
	boot := bootDoc(t)
	b := newIdleBridge(t, boot)
	doc := strings.Replace(boot, "routes:\n  - {id: r, receiver_id: in, bindings: [b]}",
		"routes:\n  - {id: r, receiver_id: in, bindings: [b], polcy: {}}", 1)
	doc = strings.Replace(doc, `{id: out, type: sse, settings: {listen:`, `{id: out, type: sse, settings: {bogus: 1, listen:`, 1)
	res := b.ValidateConfig(t.Context(), []byte(doc))
	var paths []string
	for _, p := range res.Problems {
		paths = append(paths, p.Path)
	}
	slices.Sort(paths)
	want := []string{"routes[0].polcy", "senders[0].settings"}
	if res.Valid || !cmp.Equal(want, paths) {
		t.Errorf("valid %v, problems at %v (%+v), want %v", res.Valid, paths, res.Problems, want)
	}
}
