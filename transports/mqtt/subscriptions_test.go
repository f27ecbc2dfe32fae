package mqtt

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRoutePrefersOpenReceivers covers a route restarted on a kept
// session: the closed receiver stays attached, and its replacement must
// get the messages both subscribe to.
func TestRoutePrefersOpenReceivers(t *testing.T) {
	recv := func(name string, closed bool, filters ...string) *Receiver {
		r := &Receiver{filters: filters, o: options{name: name}}
		r.closed.Store(closed)
		return r
	}
	tests := []struct {
		name  string
		rs    []*Receiver
		topic string
		want  string // the chosen receiver's name, "" for none
	}{
		{"first open match", []*Receiver{recv("a", false, "t/#"), recv("b", false, "t/x")}, "t/x", "a"},
		{"closed one skipped", []*Receiver{recv("old", true, "t/#"), recv("new", false, "t/#")}, "t/x", "new"},
		{"only a closed one matches", []*Receiver{recv("old", true, "t/#"), recv("new", false, "u/#")}, "t/x", "old"},
		{"first of several closed", []*Receiver{recv("c1", true, "t/#"), recv("c2", true, "t/#")}, "t/x", "c1"},
		{"nothing matches", []*Receiver{recv("a", false, "u/#")}, "t/x", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ss subscriptionSet
			for _, r := range tt.rs {
				ss.attach(r)
			}
			got := ""
			if r := ss.route(tt.topic); r != nil {
				got = r.o.name
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("route(%q) (-want +got):\n%s", tt.topic, diff)
			}
		})
	}
}
