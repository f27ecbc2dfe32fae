package httpapi

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
)

// scope says which key an endpoint needs.
type scope uint8

const (
	scopeOpen    scope = iota // no key
	scopeMonitor              // monitor or admin key
	scopeAdmin                // admin key only
)

// keyring holds the digests of the configured keys.
type keyring struct {
	admin, monitor [sha256.Size]byte
	hasMonitor     bool
	hasAdmin       bool
}

func newKeyring(admin, monitor string) keyring {
	k := keyring{hasAdmin: admin != "", hasMonitor: monitor != ""}
	if k.hasAdmin {
		k.admin = sha256.Sum256([]byte(admin))
	}
	if k.hasMonitor {
		k.monitor = sha256.Sum256([]byte(monitor))
	}
	return k
}

// allowsDigest reports whether a key whose SHA-256 digest is d grants sc.
// Both digests are always compared so that timing says nothing about
// which key matched.
func (k keyring) allowsDigest(sc scope, d [sha256.Size]byte) bool {
	admin := subtle.ConstantTimeCompare(d[:], k.admin[:]) == 1 && k.hasAdmin
	monitor := subtle.ConstantTimeCompare(d[:], k.monitor[:]) == 1 && k.hasMonitor
	switch sc {
	case scopeOpen:
		return true
	case scopeMonitor:
		return admin || monitor
	default:
		return admin
	}
}

// bearer extracts the token of an "Authorization: Bearer <token>" header.
// The scheme is case-insensitive.
func bearer(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	const prefix = "bearer "
	if len(h) < len(prefix) || !strings.EqualFold(h[:len(prefix)], prefix) {
		return "", false
	}
	tok := strings.TrimSpace(h[len(prefix):])
	return tok, tok != ""
}

// authorize answers 401 and returns false when r lacks a key for sc.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request, sc scope) bool {
	if sc == scopeOpen {
		return true
	}
	tok, presented := bearer(r)
	if presented && s.allows(sc, tok) {
		return true
	}
	challenge := `Bearer realm="gobridge"`
	msg := "an API key is required: send Authorization: Bearer <key>"
	if presented {
		challenge += `, error="invalid_token"`
		msg = "the API key is not valid for this endpoint"
	}
	w.Header().Set("WWW-Authenticate", challenge)
	writeError(w, http.StatusUnauthorized, errorBody{Code: "NOT_AUTHORIZED", Message: msg})
	return false
}

// allows reports whether presented grants sc: against the KeySource's
// keys when one is set, else against the keys in force and those a
// rotation replaced whose overlap has not ended.
func (s *Server) allows(sc scope, presented string) bool {
	if s.cfg.KeySource == nil {
		return s.keyset.allows(sc, presented)
	}
	return newKeyring(s.cfg.KeySource()).allowsDigest(sc, sha256.Sum256([]byte(presented)))
}
