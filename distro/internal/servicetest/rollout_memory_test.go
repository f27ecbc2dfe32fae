package servicetest

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/clock"
	"github.com/gobridge-oss/gobridge/core/cluster"
	"github.com/gobridge-oss/gobridge/stores/memory"
)

// TestRolloutOnTheMemoryStore runs the coordinated rollout's rounds on
// the memory store, on a fake clock: a round every member votes in
// commits on all of them, a round one member misses aborts at its
// deadline on the others, and the next round opens at once.
func TestRolloutOnTheMemoryStore(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	store := memory.New(memory.WithClock(clk))
	roster := []string{"a", "b", "c"}
	members := map[string]*cluster.Rollout{}
	for _, m := range roster {
		r, err := cluster.NewRollout(cluster.RolloutConfig{Store: store, Member: m, Members: roster,
			Timeout: 5 * time.Second, Poll: time.Second, Clock: clk, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		members[m] = r
	}
	type result struct {
		out cluster.Outcome
		err error
	}
	vote := func(m, hash string) <-chan result {
		ch := make(chan result, 1)
		go func() {
			out, err := members[m].Vote(context.Background(), hash)
			ch <- result{out, err}
		}()
		return ch
	}
	waiting := func(n int) {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		if err := clk.WaitForTimers(ctx, n); err != nil {
			t.Fatalf("%d members are not waiting: %v", n, err)
		}
	}
	// until moves the fake clock a second at a time until ch delivers.
	until := func(ch <-chan result) result {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			select {
			case r := <-ch:
				return r
			default:
			}
			clk.Advance(time.Second)
			select {
			case r := <-ch:
				return r
			case <-time.After(5 * time.Millisecond):
			}
		}
		t.Fatal("the vote did not end")
		return result{}
	}

	a := vote("a", "h1")
	waiting(1)
	b := vote("b", "h1")
	waiting(2)
	c := <-vote("c", "h1")
	for name, r := range map[string]result{"a": until(a), "b": until(b), "c": c} {
		if r.err != nil || !r.out.Committed {
			t.Errorf("%s in the full round: %+v, %v; want committed", name, r.out, r.err)
		}
	}

	a = vote("a", "h2")
	waiting(1)
	b = vote("b", "h2")
	waiting(2)
	for name, r := range map[string]result{"a": until(a), "b": until(b)} {
		if r.err != nil || r.out.Committed || !strings.Contains(r.out.Reason, "c did not vote within 5s") {
			t.Errorf("%s without c: %+v, %v; want an abort naming c", name, r.out, r.err)
		}
	}
	if _, live, err := members["c"].Pending(t.Context()); live || err != nil {
		t.Errorf("a round is still open after the abort (%v)", err)
	}
}
