package messaging

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// uuidPattern is the canonical lower-case UUID layout with version 4 and
// the RFC 4122 variant (8, 9, a or b) pinned.
var uuidPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestNewIDFormat(t *testing.T) {
	for range 1000 {
		id := NewID()
		if len(id) != 36 {
			t.Fatalf("len(%q) = %d, want 36", id, len(id))
		}
		dashes := []int{}
		for i, r := range id {
			if r == '-' {
				dashes = append(dashes, i)
			}
		}
		if diff := cmp.Diff([]int{8, 13, 18, 23}, dashes); diff != "" {
			t.Fatalf("dash positions in %q (-want +got):\n%s", id, diff)
		}
		if id[14] != '4' {
			t.Fatalf("version nibble of %q = %c, want 4", id, id[14])
		}
		if !strings.ContainsRune("89ab", rune(id[19])) {
			t.Fatalf("variant nibble of %q = %c, want one of 89ab", id, id[19])
		}
		if !uuidPattern.MatchString(id) {
			t.Fatalf("%q does not match the v4 UUID layout", id)
		}
	}
}

func TestNewIDUnique(t *testing.T) {
	const n = 10000
	seen := make(map[string]struct{}, n)
	for range n {
		id := NewID()
		if _, dup := seen[id]; dup {
			t.Fatalf("duplicate ID %q after %d draws", id, len(seen))
		}
		seen[id] = struct{}{}
	}
}

func TestNewIDUsesAllVariantNibbles(t *testing.T) {
	// The variant nibble carries two random bits; over many draws all four
	// values must appear, which shows the bits are not stuck.
	got := map[byte]bool{}
	for range 1000 {
		got[NewID()[19]] = true
	}
	if diff := cmp.Diff(map[byte]bool{'8': true, '9': true, 'a': true, 'b': true}, got); diff != "" {
		t.Errorf("variant nibbles seen (-want +got):\n%s", diff)
	}
}
