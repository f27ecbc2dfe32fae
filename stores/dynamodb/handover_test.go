package dynamodb

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/clock"
	"github.com/gobridge-oss/gobridge/core/fault"
)

// TestHandoverBetweenStores plays two bridges on two machines: two Stores
// on one table set, with the default clock skew. A holds the partition's
// lease and claims; its lease runs out; B waits the TTL plus the skew,
// takes the lease at a higher version and drains. Nothing A does with its
// old token after that completes or replays a record.
func TestHandoverBetweenStores(t *testing.T) {
	emu := newEmulator(t)
	prefix := emu.prefix()
	clk := clock.NewFake(testStart())
	a := emu.open(t, prefix, clk, WithClockSkew(DefaultClockSkew))
	b := emu.open(t, prefix, clk, WithClockSkew(DefaultClockSkew))
	ctx := t.Context()
	const ttl = 10 * time.Second
	const lease = "outbox/orders/to-hook"

	tokA, err := a.Acquire(ctx, lease, "bridge-a", ttl)
	if err != nil {
		t.Fatal(err)
	}
	recs := records("orders/to-hook", 5, 64)
	if err := b.Persist(ctx, recs); err != nil { // B's ingress persists too
		t.Fatal(err)
	}
	claimed, err := a.Claim(ctx, "orders/to-hook", tokA, 10)
	if err != nil || len(claimed) != 5 {
		t.Fatalf("A's claim = %d records, %v; want 5", len(claimed), err)
	}
	if err := a.Complete(ctx, recs[0].ID, tokA); err != nil {
		t.Fatal(err)
	}

	// A stops renewing. At expiry B still waits for the skew.
	clk.Advance(ttl)
	if _, err := b.Acquire(ctx, lease, "bridge-b", ttl); !errors.Is(err, fault.ErrAlreadyExists) {
		t.Fatalf("B's Acquire at expiry = %v, want ALREADY_EXISTS until the skew passed", err)
	}
	clk.Advance(DefaultClockSkew)
	tokB, err := b.Acquire(ctx, lease, "bridge-b", ttl)
	if err != nil || tokB.Version <= tokA.Version {
		t.Fatalf("B's Acquire after TTL + skew = %+v, %v; want a version above %d", tokB, err, tokA.Version)
	}
	// B's first claim raises the fence; A's claims are not stale yet.
	if got, err := b.Claim(ctx, "orders/to-hook", tokB, 10); err != nil || len(got) != 0 {
		t.Fatalf("B's claim before A's claims went stale = %d records, %v; want none", len(got), err)
	}
	stale := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, fault.ErrStaleFencingToken) {
			t.Errorf("%s = %v, want STALE_FENCING_TOKEN", what, err)
		}
	}
	stale("A's Complete after the handover", a.Complete(ctx, recs[1].ID, tokA))
	stale("A's Replay after the handover", a.Replay(ctx, recs[2].ID, tokA, errors.New("timeout"), clk.Now()))
	_, err = a.Claim(ctx, "orders/to-hook", tokA, 10)
	stale("A's Claim after the handover", err)
	if err := a.Renew(ctx, lease, tokA, ttl); !errors.Is(err, fault.ErrStaleFencingToken) {
		t.Errorf("A's Renew after the handover = %v, want STALE_FENCING_TOKEN", err)
	}

	clk.Advance(testStaleClaimAge)
	got, err := b.Claim(ctx, "orders/to-hook", tokB, 10)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ids(recs[1:]), ids(got)); diff != "" {
		t.Errorf("B's claim of A's stale claims (-want +got):\n%s", diff)
	}
	for _, r := range got {
		if r.ClaimCount != 2 {
			t.Errorf("record %s: ClaimCount %d, want 2 (A's claim and B's)", r.ID, r.ClaimCount)
		}
		stale("A's Complete of a record B took over", a.Complete(ctx, r.ID, tokA))
		if err := b.Complete(ctx, r.ID, tokB); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := a.Depth(ctx, "orders/to-hook"); err != nil || n != 0 {
		t.Errorf("Depth = %d, %v; want 0", n, err)
	}
	l, _, err := a.Read(ctx, lease)
	if err != nil || l.Token != tokB {
		t.Errorf("Read = %+v, %v; want B's token %+v", l, err, tokB)
	}
}
