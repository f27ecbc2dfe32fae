package amqp10

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTLSAndSASLExternalConfigValidate(t *testing.T) {
	dir := t.TempDir()
	crt, key := filepath.Join(dir, "c.pem"), filepath.Join(dir, "k.pem")
	for _, f := range []string{crt, key} {
		if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	missing := filepath.Join(dir, "missing.pem")
	tests := []struct {
		name string
		cfg  SessionConfig
		want []string
	}{
		{"amqps with the system roots", SessionConfig{URL: "amqps://b:5671"}, nil},
		{"external with a client certificate", SessionConfig{URL: "amqps://b:5671", SASL: SASLExternal,
			TLS: TLSConfig{CertFile: crt, KeyFile: key}}, nil},
		{"external without a certificate", SessionConfig{URL: "amqps://b:5671", SASL: SASLExternal},
			[]string{"sasl: external needs a client certificate (tls.cert_file and tls.key_file)"}},
		{"external on plain amqp with a user", SessionConfig{URL: "amqp://b", SASL: SASLExternal, Username: "u",
			TLS: TLSConfig{CertFile: crt, KeyFile: key}}, []string{
			"username: must be empty with sasl external; the identity comes from the client certificate",
			"sasl: external needs an amqps:// url",
			"tls: is only used with amqps:// URLs, the url is amqp://",
		}},
		{"tls on amqp", SessionConfig{URL: "amqp://b", TLS: TLSConfig{ServerName: "b"}},
			[]string{"tls: is only used with amqps:// URLs, the url is amqp://"}},
		{"cert without key, missing CA", SessionConfig{URL: "amqps://b", TLS: TLSConfig{CAFile: missing, CertFile: crt}}, []string{
			"tls.cert_file: cert_file and key_file go together",
			"tls.ca_file: cannot read \"" + missing + "\"",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, problemsOf(tt.cfg.WithDefaults().Validate())); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewSessionRefusesUnusableTLSFiles(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.pem")
	if err := os.WriteFile(junk, []byte("not pem"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []TLSConfig{{CAFile: junk}, {CertFile: junk, KeyFile: junk}} {
		if _, err := NewSession(SessionConfig{URL: "amqps://b", TLS: tc}); err == nil {
			t.Errorf("NewSession accepted %+v", tc)
		}
	}
}
