package config

import (
	"net/url"
	"regexp"
	"strings"
)

// urlPattern finds URLs inside a string: a scheme, "://" and what follows
// up to white space or a quote.
var urlPattern = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.\-]*://[^\s"'<>]+`)

// RedactText hides the credentials of every URL inside s: the password of
// the user information (amqp://user:<redacted>@host) and the value of each
// query parameter whose name looks like a credential, that is contains
// token, key, secret, sig, pass, pwd, auth or credential
// (https://h/x?token=<redacted>&page=2). The rest of s is unchanged.
func RedactText(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	return urlPattern.ReplaceAllStringFunc(s, redactURL)
}

// redactURL hides one URL's credentials. It works on the text rather than
// a parsed URL, so that a URL net/url refuses (a password holding a "/"
// for one) is hidden too.
func redactURL(u string) string {
	sep := strings.Index(u, "://")
	head, rest := u[:sep+3], u[sep+3:]
	// The user information ends at the last "@": a password may hold
	// "/", "?" or "#" that a careless writer did not escape.
	if at := strings.LastIndexByte(rest, '@'); at >= 0 {
		userinfo := rest[:at]
		c := strings.IndexByte(userinfo, ':')
		if c >= 0 && c < len(userinfo)-1 && !strings.ContainsAny(userinfo[:c], "/?#") {
			head += userinfo[:c+1] + RedactedValue + "@"
			rest = rest[at+1:]
		}
	}
	q := strings.IndexByte(rest, '?')
	if q < 0 {
		return head + rest
	}
	query, fragment := rest[q+1:], ""
	if h := strings.IndexByte(query, '#'); h >= 0 {
		query, fragment = query[:h], query[h:]
	}
	pairs := strings.Split(query, "&")
	for i, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		name, err := url.QueryUnescape(k)
		if err != nil {
			name = k
		}
		if ok && v != "" && sensitiveQueryKey(name) {
			pairs[i] = k + "=" + RedactedValue
		}
	}
	return head + rest[:q+1] + strings.Join(pairs, "&") + fragment
}

// sensitiveQueryKey reports whether a query parameter name looks like a
// credential.
func sensitiveQueryKey(k string) bool {
	k = strings.ToLower(k)
	for _, s := range []string{"token", "key", "secret", "sig", "pass", "pwd", "auth", "credential"} {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}
