package memory

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/clock"
	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

func TestOptions(t *testing.T) {
	fake := clock.NewFake(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	cases := []struct {
		name      string
		opts      []Option
		wantStale time.Duration
		wantFake  bool
	}{
		{"Defaults", nil, ports.DefaultStaleClaimAge, false},
		{"StaleAge", []Option{WithStaleClaimAge(time.Minute)}, time.Minute, false},
		{"NonPositiveStaleAgeKeepsDefault", []Option{WithStaleClaimAge(0), WithStaleClaimAge(-time.Second)}, ports.DefaultStaleClaimAge, false},
		{"Clock", []Option{WithClock(fake)}, ports.DefaultStaleClaimAge, true},
		{"NilClockKeepsDefault", []Option{WithClock(fake), WithClock(nil)}, ports.DefaultStaleClaimAge, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := New(c.opts...)
			got := struct {
				Stale time.Duration
				Fake  bool
			}{s.StaleClaimAge(), s.clk == fake}
			want := struct {
				Stale time.Duration
				Fake  bool
			}{c.wantStale, c.wantFake}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestQueuesStayBounded checks that slots of completed and re-claimed
// records do not pile up in the partition queues.
func TestQueuesStayBounded(t *testing.T) {
	ctx := t.Context()
	clk := clock.NewFake(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	s := New(WithClock(clk), WithStaleClaimAge(time.Second))
	for round := range 200 {
		recs := make([]ports.OutboxRecord, 10)
		for i := range recs {
			recs[i] = ports.OutboxRecord{Partition: "p", Envelope: messaging.NewEnvelope("s", fmt.Appendf(nil, "%d-%d", round, i))}
		}
		if err := s.Persist(ctx, recs); err != nil {
			t.Fatal(err)
		}
		got, err := s.Claim(ctx, "p", ports.LeaseToken{}, 10)
		if err != nil || len(got) != 10 {
			t.Fatalf("round %d: Claim = %d records, %v", round, len(got), err)
		}
		for _, r := range got[:9] {
			if err := s.Complete(ctx, r.ID, ports.LeaseToken{}); err != nil {
				t.Fatal(err)
			}
		}
		// The tenth goes stale and is re-claimed next round.
		clk.Advance(time.Second)
	}
	p := s.ob.parts["p"]
	if n := len(p.ready) + len(p.waiting); n > 2*p.depth+64 {
		t.Errorf("%d queue slots for %d live records", n, p.depth)
	}
}

func TestCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	s := New()
	calls := map[string]error{
		"Persist": s.Persist(ctx, []ports.OutboxRecord{{Envelope: messaging.NewEnvelope("s", nil)}}),
		"Write":   s.Write(ctx, ports.DLQEntry{}),
	}
	_, calls["Claim"] = s.Claim(ctx, "p", ports.LeaseToken{}, 1)
	_, calls["Acquire"] = s.Acquire(ctx, "k", "a", time.Second)
	_, calls["List"] = s.List(ctx, ports.DLQFilter{}, "", 0)
	for name, err := range calls {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a cancelled context = %v, want context.Canceled", name, err)
		}
	}
	if n, _ := s.Depth(t.Context(), "p"); n != 0 {
		t.Errorf("a cancelled Persist stored %d records", n)
	}
}

func TestInvalidInput(t *testing.T) {
	ctx := t.Context()
	s := New()
	err := s.Persist(ctx, []ports.OutboxRecord{{Partition: "p", Envelope: messaging.NewEnvelope("s", nil)}, {Partition: "p"}})
	if !errors.Is(err, fault.ErrInvalidPayload) {
		t.Errorf("Persist of a record without envelope = %v, want INVALID_PAYLOAD", err)
	}
	if n, _ := s.Depth(ctx, "p"); n != 0 {
		t.Errorf("a refused batch stored %d records", n)
	}
	if _, err := s.List(ctx, ports.DLQFilter{}, "not-a-cursor", 0); !errors.Is(err, fault.ErrInvalidConfig) {
		t.Errorf("List with a malformed cursor = %v, want INVALID_CONFIG", err)
	}
	if _, err := s.Acquire(ctx, "k", "", time.Second); !errors.Is(err, fault.ErrInvalidConfig) {
		t.Errorf("Acquire with an empty owner = %v, want INVALID_CONFIG", err)
	}
}
