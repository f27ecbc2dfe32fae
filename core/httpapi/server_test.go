package httpapi

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/itest"
)

func TestNewRefuses(t *testing.T) {
	ok := Config{AdminAddr: ":0", MonitorAddr: ":0", AdminAPIKey: adminKey}
	tests := []struct {
		name string
		edit func(*Config)
		want []string
	}{
		{"no key", func(c *Config) { c.AdminAPIKey = "" }, []string{"admin_api_key is required"}},
		{"short keys", func(c *Config) { c.AdminAPIKey, c.MonitorAPIKey = "short", "short" },
			[]string{"admin_api_key must be at least 16", "monitor_api_key must be at least 16"}},
		{"cert without key", func(c *Config) { c.TLSCertFile = "c.pem" }, []string{"tls_cert_file and tls_key_file must be set together"}},
		{"key without cert", func(c *Config) { c.TLSKeyFile = "k.pem" }, []string{"tls_cert_file and tls_key_file must be set together"}},
		{"wildcard origin", func(c *Config) { c.CORSOrigins = []string{"https://a.example", "*"} }, []string{"cors_origins[1]: wildcard"}},
		{"no address", func(c *Config) { c.AdminAddr, c.MonitorAddr = "", "" }, []string{"both empty"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := ok
			tt.edit(&cfg)
			_, err := New(cfg, &fakeBackend{})
			if fault.CodeOf(err) != fault.CodeInvalidConfig {
				t.Fatalf("err = %v, want INVALID_CONFIG", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not mention %q", err, w)
				}
			}
		})
	}
	if _, err := New(ok, nil); err == nil {
		t.Error("nil backend accepted")
	}
}

func get(t *testing.T, c *http.Client, url, key string) int {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}

func shutdown(t *testing.T, s *Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Errorf("shutdown: %v", err)
	}
}

func TestStartServeShutdown(t *testing.T) {
	s := newTestServer(t, &fakeBackend{readiness: Readiness{Level: LevelFull, Role: RoleStandalone}})
	if err := s.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := s.Start(t.Context()); err == nil {
		t.Error("second Start accepted")
	}
	a, m := "http://"+s.AdminAddr(), "http://"+s.MonitorAddr()
	if a == m {
		t.Fatalf("admin and monitor share %s", a)
	}
	c := &http.Client{}
	got := []int{
		get(t, c, m+"/api/v1/monitor/ready", ""),
		get(t, c, a+"/api/v1/admin/status", adminKey),
		get(t, c, a+"/api/v1/monitor/health", ""), // the admin listener serves only the admin API
		get(t, c, m+"/api/v1/admin/status", adminKey),
	}
	if diff := cmp.Diff([]int{200, 200, 404, 404}, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	shutdown(t, s)
	if _, err := net.Dial("tcp", s.AdminAddr()); err == nil {
		t.Error("admin listener still accepts after Shutdown")
	}
}

func TestStartAddressInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	s, err := New(Config{AdminAddr: "127.0.0.1:0", MonitorAddr: ln.Addr().String(), AdminAPIKey: adminKey}, &fakeBackend{})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Start(t.Context())
	if fault.CodeOf(err) != fault.CodeUnavailable || !strings.Contains(err.Error(), "monitor listener") {
		t.Fatalf("err = %v, want UNAVAILABLE naming the monitor listener", err)
	}
	if s.AdminAddr() != "" {
		t.Error("a failed Start left the admin listener bound")
	}
}

func TestSharedAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	s, err := New(Config{AdminAddr: addr, MonitorAddr: addr, AdminAPIKey: adminKey}, &fakeBackend{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(t.Context()); err != nil {
		itest.Unavailable(t, "port %s was taken meanwhile: %v", addr, err)
	}
	defer shutdown(t, s)
	c := &http.Client{}
	got := []any{s.AdminAddr() == s.MonitorAddr(),
		get(t, c, "http://"+addr+"/api/v1/monitor/live", ""),
		get(t, c, "http://"+addr+"/api/v1/admin/status", adminKey)}
	if diff := cmp.Diff([]any{true, 200, 200}, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

// writeCert writes a self-signed certificate for 127.0.0.1 and returns the
// file paths and a pool that trusts it.
func writeCert(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "gobridge-test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

func TestTLS(t *testing.T) {
	certFile, keyFile, pool := writeCert(t)
	s, err := New(Config{AdminAddr: "127.0.0.1:0", MonitorAddr: "127.0.0.1:0", AdminAPIKey: adminKey,
		TLSCertFile: certFile, TLSKeyFile: keyFile}, &fakeBackend{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer shutdown(t, s)
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	got := []int{get(t, c, "https://"+s.MonitorAddr()+"/api/v1/monitor/health", ""),
		get(t, c, "https://"+s.AdminAddr()+"/api/v1/admin/status", adminKey)}
	if diff := cmp.Diff([]int{200, 200}, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

func TestTLSBadFiles(t *testing.T) {
	s, err := New(Config{AdminAddr: "127.0.0.1:0", AdminAPIKey: adminKey,
		TLSCertFile: filepath.Join(t.TempDir(), "missing.pem"), TLSKeyFile: "missing.key"}, &fakeBackend{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(t.Context()); fault.CodeOf(err) != fault.CodeInvalidConfig {
		t.Fatalf("err = %v, want INVALID_CONFIG", err)
	}
}

func TestCORS(t *testing.T) {
	s, err := New(Config{AdminAddr: ":0", AdminAPIKey: adminKey, CORSOrigins: []string{"https://ops.example"}}, &fakeBackend{})
	if err != nil {
		t.Fatal(err)
	}
	admin, _ := s.Handlers()
	type result struct {
		Status       int
		AllowOrigin  string
		AllowHeaders string
	}
	tests := []struct {
		name, method, origin string
		preflight            bool
		want                 result
	}{
		{"listed origin", http.MethodGet, "https://ops.example", false, result{200, "https://ops.example", ""}},
		{"other origin gets no header", http.MethodGet, "https://evil.example", false, result{200, "", ""}},
		{"no origin", http.MethodGet, "", false, result{200, "", ""}},
		{"preflight listed", http.MethodOptions, "https://ops.example", true, result{204, "https://ops.example", "Authorization, Content-Type"}},
		{"preflight other", http.MethodOptions, "https://evil.example", true, result{403, "", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequestWithContext(t.Context(), tt.method, "/api/v1/admin/status", nil)
			req.Header.Set("Authorization", "Bearer "+adminKey)
			if tt.origin != "" {
				req.Header.Set("Origin", tt.origin)
			}
			if tt.preflight {
				req.Header.Set("Access-Control-Request-Method", "GET")
			}
			rec := httptest.NewRecorder()
			admin.ServeHTTP(rec, req)
			got := result{rec.Code, rec.Header().Get("Access-Control-Allow-Origin"), rec.Header().Get("Access-Control-Allow-Headers")}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}
