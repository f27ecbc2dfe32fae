package ports_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/ports"
)

func TestSettleScope(t *testing.T) {
	if ports.OnSettled(context.Background(), func(ports.Settlement) {}) {
		t.Fatal("OnSettled without a scope reported success")
	}
	var s ports.SettleScope
	ctx := ports.WithSettleScope(context.Background(), &s)
	var got []string
	for _, name := range []string{"first", "second"} {
		if !ports.OnSettled(ctx, func(st ports.Settlement) { got = append(got, name+":"+string(st.Outcome)) }) {
			t.Fatal("OnSettled with a scope reported failure")
		}
	}
	s.Fire(ports.Settlement{Outcome: ports.SettledAcked, Terminal: true})
	s.Fire(ports.Settlement{Outcome: ports.SettledRetried}) // the scope is empty again
	if diff := cmp.Diff([]string{"first:acked", "second:acked"}, got); diff != "" {
		t.Errorf("hook calls (-want +got):\n%s", diff)
	}
}
