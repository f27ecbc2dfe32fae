package conformance

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// leaseTTL is the TTL the lease subtests acquire with.
const leaseTTL = 10 * time.Second

// RunLeaseStore checks a ports.LeaseStore: a free lease is acquired at
// version 1, an unexpired lease of another owner is refused with
// ALREADY_EXISTS, an expired or released one changes hands at a higher
// version, Renew and Release refuse tokens that are no longer current
// with STALE_FENCING_TOKEN, Read reports the stored state, concurrent
// acquirers never both win, and, when the harness can reopen the store,
// leases survive a reopen. newHarness is called once per subtest.
//
// Beyond the port's godoc the suite pins down these choices:
//   - A lease expires when the clock reaches ExpiresAt (acquire or renew
//     time + ttl).
//   - A token is current while it is the latest token issued for the key
//     and has not been released; its owner must match too. Renew of a
//     current token whose lease expired without anyone taking it over
//     succeeds and extends it.
//   - Acquire by the owner that holds the lease succeeds and issues a new,
//     higher version, which fences out the owner's older token (a
//     restarted process reusing its instance ID).
//   - Release leaves the version in place and the lease expired: Read
//     still reports it, with ExpiresAt not after the release time.
//   - Renew and Release of a key never taken fail with
//     STALE_FENCING_TOKEN; a ttl of zero or less fails with
//     INVALID_CONFIG.
func RunLeaseStore(t *testing.T, newHarness func(t *testing.T) LeaseHarness) {
	t.Helper()
	cases := []struct {
		name string
		run  func(ctx context.Context, t *testing.T, h LeaseHarness)
	}{
		{"AcquireFree", leaseAcquireFree},
		{"ReadNeverTaken", leaseReadNeverTaken},
		{"HeldByAnotherOwner", leaseHeld},
		{"ExpiredLeaseChangesHands", leaseExpiry},
		{"Renew", leaseRenew},
		{"RenewAfterExpiryUntaken", leaseRenewExpired},
		{"ReleaseThenAcquire", leaseRelease},
		{"ReleaseStaleToken", leaseReleaseStale},
		{"VersionsStrictlyIncrease", leaseVersions},
		{"SameOwnerReacquire", leaseSameOwner},
		{"KeysIndependent", leaseKeys},
		{"InvalidTTL", leaseInvalidTTL},
		{"ConcurrentAcquire", leaseConcurrentAcquire},
		{"SurvivesReopen", leaseReopen},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t)
			if h.Store == nil || h.Clock == nil {
				t.Fatal("harness needs a Store and the Clock it was built with")
			}
			ctx := storeContext(t, h.Timeout, h.Close)
			c.run(ctx, t, h)
		})
	}
}

// acquire acquires or fails the test.
func acquire(ctx context.Context, t *testing.T, s ports.LeaseStore, key, owner string) ports.LeaseToken {
	t.Helper()
	tk, err := s.Acquire(ctx, key, owner, leaseTTL)
	if err != nil {
		t.Fatalf("Acquire(%q, %q): %v", key, owner, err)
	}
	if tk.Owner != owner {
		t.Errorf("Acquire(%q, %q) returned owner %q", key, owner, tk.Owner)
	}
	return tk
}

// wantHeld checks that owner cannot acquire key.
func wantHeld(ctx context.Context, t *testing.T, s ports.LeaseStore, key, owner string) {
	t.Helper()
	tk, err := s.Acquire(ctx, key, owner, leaseTTL)
	if !errors.Is(err, fault.ErrAlreadyExists) {
		t.Errorf("Acquire(%q, %q) of a held lease = %+v, %v; want ALREADY_EXISTS", key, owner, tk, err)
	}
}

// wantLease checks what Read reports.
func wantLease(ctx context.Context, t *testing.T, s ports.LeaseStore, want ports.Lease) {
	t.Helper()
	got, ok, err := s.Read(ctx, want.Key)
	if err != nil || !ok {
		t.Fatalf("Read(%q) = ok %v, %v; want a lease", want.Key, ok, err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Read(%q) (-want +got):\n%s", want.Key, diff)
	}
}

func leaseAcquireFree(ctx context.Context, t *testing.T, h LeaseHarness) {
	tk := acquire(ctx, t, h.Store, "k", "a")
	if want := (ports.LeaseToken{Owner: "a", Version: 1}); tk != want {
		t.Errorf("first Acquire = %+v, want %+v", tk, want)
	}
	wantLease(ctx, t, h.Store, ports.Lease{Key: "k", Token: tk, ExpiresAt: h.Clock.Now().Add(leaseTTL)})
}

func leaseReadNeverTaken(ctx context.Context, t *testing.T, h LeaseHarness) {
	l, ok, err := h.Store.Read(ctx, "never")
	if err != nil || ok {
		t.Errorf("Read of a lease never taken = %+v, ok %v, %v; want ok false, nil", l, ok, err)
	}
}

func leaseHeld(ctx context.Context, t *testing.T, h LeaseHarness) {
	tk := acquire(ctx, t, h.Store, "k", "a")
	want := ports.Lease{Key: "k", Token: tk, ExpiresAt: h.Clock.Now().Add(leaseTTL)}
	wantHeld(ctx, t, h.Store, "k", "b")
	h.Clock.Advance(leaseTTL - time.Nanosecond)
	wantHeld(ctx, t, h.Store, "k", "b")
	wantLease(ctx, t, h.Store, want)
}

func leaseExpiry(ctx context.Context, t *testing.T, h LeaseHarness) {
	a := acquire(ctx, t, h.Store, "k", "a")
	h.Clock.Advance(leaseTTL)
	b := acquire(ctx, t, h.Store, "k", "b")
	if b.Version <= a.Version {
		t.Errorf("version %d after handover, want more than %d", b.Version, a.Version)
	}
	wantLease(ctx, t, h.Store, ports.Lease{Key: "k", Token: b, ExpiresAt: h.Clock.Now().Add(leaseTTL)})
	wantStale(t, "Renew by the former owner", h.Store.Renew(ctx, "k", a, leaseTTL))
	wantStale(t, "Release by the former owner", h.Store.Release(ctx, "k", a))
	wantHeld(ctx, t, h.Store, "k", "a")
	wantLease(ctx, t, h.Store, ports.Lease{Key: "k", Token: b, ExpiresAt: h.Clock.Now().Add(leaseTTL)})
}

func leaseRenew(ctx context.Context, t *testing.T, h LeaseHarness) {
	a := acquire(ctx, t, h.Store, "k", "a")
	h.Clock.Advance(leaseTTL / 2)
	if err := h.Store.Renew(ctx, "k", a, 2*leaseTTL); err != nil {
		t.Fatalf("Renew with the current token: %v", err)
	}
	renewed := ports.Lease{Key: "k", Token: a, ExpiresAt: h.Clock.Now().Add(2 * leaseTTL)}
	wantLease(ctx, t, h.Store, renewed)
	h.Clock.Advance(2*leaseTTL - time.Nanosecond)
	wantHeld(ctx, t, h.Store, "k", "b")
	for _, c := range []struct {
		name string
		tok  ports.LeaseToken
	}{
		{"an older version", ports.LeaseToken{Owner: "a", Version: a.Version - 1}},
		{"a newer version", ports.LeaseToken{Owner: "a", Version: a.Version + 1}},
		{"another owner", ports.LeaseToken{Owner: "b", Version: a.Version}},
		{"the zero token", ports.LeaseToken{}},
	} {
		wantStale(t, "Renew with "+c.name, h.Store.Renew(ctx, "k", c.tok, leaseTTL))
	}
	wantStale(t, "Renew of a key never taken", h.Store.Renew(ctx, "never", a, leaseTTL))
	wantLease(ctx, t, h.Store, renewed)
}

func leaseRenewExpired(ctx context.Context, t *testing.T, h LeaseHarness) {
	a := acquire(ctx, t, h.Store, "k", "a")
	h.Clock.Advance(2 * leaseTTL)
	if err := h.Store.Renew(ctx, "k", a, leaseTTL); err != nil {
		t.Fatalf("Renew of an expired lease nobody took: %v", err)
	}
	wantLease(ctx, t, h.Store, ports.Lease{Key: "k", Token: a, ExpiresAt: h.Clock.Now().Add(leaseTTL)})
	wantHeld(ctx, t, h.Store, "k", "b")
}

func leaseRelease(ctx context.Context, t *testing.T, h LeaseHarness) {
	a := acquire(ctx, t, h.Store, "k", "a")
	h.Clock.Advance(time.Second)
	if err := h.Store.Release(ctx, "k", a); err != nil {
		t.Fatalf("Release with the current token: %v", err)
	}
	l, ok, err := h.Store.Read(ctx, "k")
	if err != nil || !ok || l.Token.Version != a.Version || l.ExpiresAt.After(h.Clock.Now()) {
		t.Errorf("Read after Release = %+v, ok %v, %v; want version %d, expired", l, ok, err, a.Version)
	}
	wantStale(t, "Renew after Release", h.Store.Renew(ctx, "k", a, leaseTTL))
	b := acquire(ctx, t, h.Store, "k", "b")
	if b.Version <= a.Version {
		t.Errorf("version %d after Release, want more than %d", b.Version, a.Version)
	}
	wantLease(ctx, t, h.Store, ports.Lease{Key: "k", Token: b, ExpiresAt: h.Clock.Now().Add(leaseTTL)})
}

func leaseReleaseStale(ctx context.Context, t *testing.T, h LeaseHarness) {
	a := acquire(ctx, t, h.Store, "k", "a")
	h.Clock.Advance(leaseTTL)
	b := acquire(ctx, t, h.Store, "k", "b")
	wantStale(t, "Release with the former owner's token", h.Store.Release(ctx, "k", a))
	wantStale(t, "Release of a key never taken", h.Store.Release(ctx, "never", a))
	wantHeld(ctx, t, h.Store, "k", "a")
	wantLease(ctx, t, h.Store, ports.Lease{Key: "k", Token: b, ExpiresAt: h.Clock.Now().Add(leaseTTL)})
}
