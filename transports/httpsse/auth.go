package httpsse

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
)

// keyring checks bearer keys in constant time. Keys are compared by their
// SHA-256 digests, so neither a key's content nor its length leaks through
// timing, and every key is compared on every request.
type keyring struct {
	digests [][sha256.Size]byte
}

func newKeyring(keys []string) keyring {
	kr := keyring{digests: make([][sha256.Size]byte, len(keys))}
	for i, k := range keys {
		kr.digests[i] = sha256.Sum256([]byte(k))
	}
	return kr
}

// enabled reports whether any key is configured.
func (kr keyring) enabled() bool { return len(kr.digests) > 0 }

// allows reports whether token is one of the keys.
func (kr keyring) allows(token string) bool {
	d := sha256.Sum256([]byte(token))
	ok := 0
	for i := range kr.digests {
		ok |= subtle.ConstantTimeCompare(d[:], kr.digests[i][:])
	}
	return ok == 1
}

// bearerToken extracts the token of an "Authorization: Bearer <token>"
// header; the scheme is case-insensitive.
func bearerToken(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// challenge answers 401 with the RFC 6750 challenge.
func challenge(w http.ResponseWriter, presented bool) {
	v := `Bearer realm="gobridge"`
	if presented {
		v += `, error="invalid_token"`
	}
	w.Header().Set("WWW-Authenticate", v)
}
