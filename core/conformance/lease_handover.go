package conformance

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

func leaseVersions(ctx context.Context, t *testing.T, h LeaseHarness) {
	var last uint64
	for i, owner := range []string{"a", "b", "c", "a", "b"} {
		tk := acquire(ctx, t, h.Store, "k", owner)
		if tk.Version <= last {
			t.Errorf("handover %d to %q: version %d, want more than %d", i, owner, tk.Version, last)
		}
		last = tk.Version
		// Alternate between letting the lease expire and releasing it.
		if i%2 == 0 {
			h.Clock.Advance(leaseTTL)
		} else if err := h.Store.Release(ctx, "k", tk); err != nil {
			t.Fatalf("Release: %v", err)
		}
	}
}

func leaseSameOwner(ctx context.Context, t *testing.T, h LeaseHarness) {
	first := acquire(ctx, t, h.Store, "k", "a")
	h.Clock.Advance(time.Second)
	second := acquire(ctx, t, h.Store, "k", "a")
	if second.Version <= first.Version {
		t.Errorf("re-acquire by the holder: version %d, want more than %d", second.Version, first.Version)
	}
	wantLease(ctx, t, h.Store, ports.Lease{Key: "k", Token: second, ExpiresAt: h.Clock.Now().Add(leaseTTL)})
	wantStale(t, "Renew with the holder's older token", h.Store.Renew(ctx, "k", first, leaseTTL))
	if err := h.Store.Renew(ctx, "k", second, leaseTTL); err != nil {
		t.Errorf("Renew with the holder's new token: %v", err)
	}
	wantHeld(ctx, t, h.Store, "k", "b")
}

func leaseKeys(ctx context.Context, t *testing.T, h LeaseHarness) {
	a := acquire(ctx, t, h.Store, "k1", "a")
	h.Clock.Advance(leaseTTL)
	acquire(ctx, t, h.Store, "k1", "c") // k1 moves on to version 2
	b := acquire(ctx, t, h.Store, "k2", "b")
	if b.Version != 1 {
		t.Errorf("first Acquire of k2: version %d, want 1", b.Version)
	}
	wantStale(t, "Renew of k2 with a token of k1", h.Store.Renew(ctx, "k2", a, leaseTTL))
	if err := h.Store.Release(ctx, "k2", b); err != nil {
		t.Errorf("Release of k2: %v", err)
	}
	wantHeld(ctx, t, h.Store, "k1", "b")
}

func leaseInvalidTTL(ctx context.Context, t *testing.T, h LeaseHarness) {
	for _, ttl := range []time.Duration{0, -time.Second} {
		if tk, err := h.Store.Acquire(ctx, "k", "a", ttl); !errors.Is(err, fault.ErrInvalidConfig) {
			t.Errorf("Acquire with ttl %v = %+v, %v; want INVALID_CONFIG", ttl, tk, err)
		}
	}
	if _, ok, err := h.Store.Read(ctx, "k"); err != nil || ok {
		t.Errorf("Read after refused Acquires = ok %v, %v; want no lease", ok, err)
	}
	a := acquire(ctx, t, h.Store, "k", "a")
	if err := h.Store.Renew(ctx, "k", a, 0); !errors.Is(err, fault.ErrInvalidConfig) {
		t.Errorf("Renew with ttl 0 = %v, want INVALID_CONFIG", err)
	}
	wantLease(ctx, t, h.Store, ports.Lease{Key: "k", Token: a, ExpiresAt: h.Clock.Now().Add(leaseTTL)})
}

func leaseConcurrentAcquire(ctx context.Context, t *testing.T, h LeaseHarness) {
	const contenders = 8
	toks := make([]ports.LeaseToken, contenders)
	errs := make([]error, contenders)
	var wg sync.WaitGroup
	for i := range contenders {
		wg.Go(func() {
			toks[i], errs[i] = h.Store.Acquire(ctx, "k", fmt.Sprintf("owner-%d", i), leaseTTL)
		})
	}
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner >= 0:
			t.Errorf("owners %d and %d both acquired the lease", winner, i)
		case err == nil:
			winner = i
		case !errors.Is(err, fault.ErrAlreadyExists):
			t.Errorf("owner %d: %v, want ALREADY_EXISTS", i, err)
		}
	}
	if winner < 0 {
		t.Fatal("no owner acquired the free lease")
	}
	wantLease(ctx, t, h.Store, ports.Lease{Key: "k", Token: toks[winner], ExpiresAt: h.Clock.Now().Add(leaseTTL)})
}

func leaseReopen(ctx context.Context, t *testing.T, h LeaseHarness) {
	if h.Reopen == nil {
		t.Skip("the harness cannot reopen its store")
	}
	a := acquire(ctx, t, h.Store, "k", "a")
	other := acquire(ctx, t, h.Store, "released", "a")
	if err := h.Store.Release(ctx, "released", other); err != nil {
		t.Fatalf("Release: %v", err)
	}
	h.Store = h.Reopen(t)
	if h.Store == nil {
		t.Fatal("Reopen returned no store")
	}
	want := ports.Lease{Key: "k", Token: a, ExpiresAt: h.Clock.Now().Add(leaseTTL)}
	wantLease(ctx, t, h.Store, want)
	wantHeld(ctx, t, h.Store, "k", "b")
	if err := h.Store.Renew(ctx, "k", a, leaseTTL); err != nil {
		t.Errorf("Renew after reopen: %v", err)
	}
	h.Clock.Advance(leaseTTL)
	b := acquire(ctx, t, h.Store, "k", "b")
	if b.Version <= a.Version {
		t.Errorf("version %d after reopen and handover, want more than %d", b.Version, a.Version)
	}
	c := acquire(ctx, t, h.Store, "released", "c")
	if c.Version <= other.Version {
		t.Errorf("version %d of a released lease after reopen, want more than %d", c.Version, other.Version)
	}
}
