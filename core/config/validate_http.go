package config

import (
	"net"
	"strings"
	"unicode/utf8"
)

// http checks the admin/monitor API block.
func (v *validator) http() {
	h := v.f.HTTP
	if h == nil {
		return
	}
	switch n := utf8.RuneCountInString(h.AdminAPIKey); {
	case h.AdminAPIKey == "":
		v.addf("http.admin_api_key", "admin_api_key is required")
	case n < MinAPIKeyLength:
		v.addf("http.admin_api_key", "must be at least %d characters, got %d", MinAPIKeyLength, n)
	}
	if n := utf8.RuneCountInString(h.MonitorAPIKey); h.MonitorAPIKey != "" && n < MinAPIKeyLength {
		v.addf("http.monitor_api_key", "must be at least %d characters, got %d", MinAPIKeyLength, n)
	}
	if h.APIKeyOverlap < 0 {
		v.addf("http.api_key_overlap", "must not be negative, got %s", h.APIKeyOverlap)
	}
	for i, r := range h.PostedConfigRefs {
		if !validRefName(r) {
			v.addf(index("http.posted_config_refs", i), "%q is not a reference: write env:NAME or file:/absolute/path", r)
		}
	}
	if (h.TLSCertFile == "") != (h.TLSKeyFile == "") {
		path, missing := "http.tls_key_file", "tls_key_file"
		if h.TLSCertFile == "" {
			path, missing = "http.tls_cert_file", "tls_cert_file"
		}
		v.addf(path, "%s is required when the other half of the TLS pair is set (both or none)", missing)
	}
	for i, o := range h.CORSOrigins {
		path := index("http.cors_origins", i)
		switch {
		case strings.TrimSpace(o) == "*":
			v.addf(path, "wildcard origin \"*\" is rejected; list each allowed origin")
		case o == "":
			v.addf(path, "origin must not be empty")
		}
	}
	addrs := []struct{ key, addr string }{{"admin_addr", h.AdminAddr}, {"monitor_addr", h.MonitorAddr}}
	for _, a := range addrs {
		if a.addr == "" {
			continue
		}
		host, _, err := net.SplitHostPort(a.addr)
		if err != nil {
			v.addf(join("http", a.key), "invalid listen address %q: want host:port", a.addr)
			continue
		}
		if h.TLSCertFile == "" && !loopback(host) {
			v.warnf(join("http", a.key), "listens on %q without TLS: API keys travel in clear text unless a proxy terminates TLS", a.addr)
		}
	}
	if h.AdminAddr != "" && h.AdminAddr == h.MonitorAddr {
		v.addf("http.monitor_addr", "must differ from admin_addr (%s)", h.AdminAddr)
	}
}

// loopback reports whether host only accepts local connections.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
