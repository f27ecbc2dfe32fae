package httpsse

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"
)

// MinBearerKeyLength is the fewest characters a bearer key of the ingress
// or the SSE sender may have: the rule core/config applies to the admin
// API's keys (config.MinAPIKeyLength), so that no listener of a bridge
// takes a key shorter than the admin API would.
const MinBearerKeyLength = 16

// checkBearerKeys adds a problem for each key that is not a usable token
// or is shorter than MinBearerKeyLength. Problems never quote a key.
func checkBearerKeys(ps *problems, keys []string) {
	for i, k := range keys {
		field := fmt.Sprintf("bearer_keys[%d]", i)
		if strings.TrimSpace(k) == "" || !validHeaderValue(k) || strings.ContainsAny(k, " \t") {
			ps.add(field, "must be a non-empty token without spaces or control characters")
		} else if n := utf8.RuneCountInString(k); n < MinBearerKeyLength {
			ps.add(field, "must be at least %d characters, got %d", MinBearerKeyLength, n)
		}
	}
}

// checkOrigins adds a problem for each entry of allow_origins that is
// neither an origin (scheme://host[:port]) nor "*".
func checkOrigins(ps *problems, origins []string) {
	for i, o := range origins {
		if o == "*" {
			continue
		}
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
			ps.add(fmt.Sprintf("allow_origins[%d]", i), "%q is not an origin such as https://app.example.com or *", o)
		}
	}
}

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
