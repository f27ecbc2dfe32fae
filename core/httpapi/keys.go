package httpapi

import (
	"crypto/sha256"
	"fmt"
	"sync"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// CheckKeys reports whether admin and monitor may serve as API keys: the
// admin key is required and both, when set, have at least MinKeyLength
// characters. RotateKeys refuses what CheckKeys refuses; a composition
// root calls it before committing to a reload.
func CheckKeys(admin, monitor string) error {
	switch {
	case admin == "":
		return fault.ErrInvalidConfig.WithMessage("http: admin_api_key is required")
	case len(admin) < MinKeyLength:
		return fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("http: admin_api_key must be at least %d characters", MinKeyLength))
	case monitor != "" && len(monitor) < MinKeyLength:
		return fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("http: monitor_api_key must be at least %d characters", MinKeyLength))
	}
	return nil
}

// keySet is the keys in force and the keys rotations replaced that are
// still accepted until their deadline.
type keySet struct {
	now func() time.Time

	mu      sync.RWMutex
	current keyring
	retired []retiredKeys
}

// retiredKeys are replaced keys, each keeping its scope until until.
type retiredKeys struct {
	keys  keyring
	until time.Time
}

// allows reports whether presented grants sc under the current keys or
// under replaced keys whose overlap has not ended. Every ring is compared,
// so timing says little about which key matched.
func (k *keySet) allows(sc scope, presented string) bool {
	d := sha256.Sum256([]byte(presented))
	now := k.now()
	k.mu.RLock()
	defer k.mu.RUnlock()
	ok := k.current.allowsDigest(sc, d)
	for _, r := range k.retired {
		if r.keys.allowsDigest(sc, d) && now.Before(r.until) {
			ok = true
		}
	}
	return ok
}

// rotate makes admin and monitor current; the replaced keys stay valid
// for overlap. Rotating to the keys already in force changes nothing, so
// a reload that keeps the keys does not extend an earlier overlap.
func (k *keySet) rotate(admin, monitor string, overlap time.Duration) (changed bool) {
	next := newKeyring(admin, monitor)
	now := k.now()
	k.mu.Lock()
	defer k.mu.Unlock()
	live := k.retired[:0]
	for _, r := range k.retired {
		if now.Before(r.until) {
			live = append(live, r)
		}
	}
	k.retired = live
	if next == k.current {
		return false
	}
	if overlap > 0 {
		k.retired = append(k.retired, retiredKeys{keys: k.current, until: now.Add(overlap)})
	}
	k.current = next
	return true
}

// RotateKeys makes admin and monitor the API keys from the next request
// on. The keys they replace are still accepted, each for its own scope,
// for overlap; 0 refuses them at once. Keys that fail CheckKeys, or a
// negative overlap, are refused with INVALID_CONFIG and change nothing;
// so is every rotation of a server whose keys come from a KeySource.
func (s *Server) RotateKeys(admin, monitor string, overlap time.Duration) error {
	if s.cfg.KeySource != nil {
		return fault.ErrInvalidConfig.WithMessage("http: the keys come from a key source; rotate them there")
	}
	if err := CheckKeys(admin, monitor); err != nil {
		return err
	}
	if overlap < 0 {
		return fault.ErrInvalidConfig.WithMessage("http: the key overlap must not be negative")
	}
	if s.keyset.rotate(admin, monitor, overlap) {
		s.log.Info("API keys rotated", "overlap", overlap.String())
	}
	return nil
}
