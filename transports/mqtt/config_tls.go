package mqtt

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// TLSConfig configures the TLS client of mqtts, ssl, tls and wss URLs.
type TLSConfig struct {
	// CAFile is a PEM bundle of the authorities to trust (the system pool).
	CAFile string `yaml:"ca_file" json:"ca_file"`
	// CertFile and KeyFile are a PEM client certificate and its key, for
	// brokers that authenticate clients by certificate (none).
	CertFile string `yaml:"cert_file" json:"cert_file"`
	KeyFile  string `yaml:"key_file" json:"key_file"`
	// ServerName overrides the name checked against the broker's
	// certificate (the URL's host).
	ServerName string `yaml:"server_name" json:"server_name"`
	// MinVersion is the lowest TLS version accepted: "1.2" (default) or
	// "1.3".
	MinVersion string `yaml:"min_version" json:"min_version"`
	// InsecureSkipVerify accepts any broker certificate. For tests only.
	InsecureSkipVerify bool `yaml:"insecure_skip_verify" json:"insecure_skip_verify"`
}

func (t TLSConfig) configured() bool {
	return t != TLSConfig{}
}

func (t TLSConfig) validate(ps *problems, _ bool) {
	switch t.MinVersion {
	case "", "1.2", "1.3":
	default:
		ps.add("tls.min_version", "%q is invalid; must be 1.2 or 1.3", t.MinVersion)
	}
	if (t.CertFile == "") != (t.KeyFile == "") {
		ps.add("tls.cert_file", "cert_file and key_file go together")
	}
	for _, f := range []struct{ field, path string }{{"tls.ca_file", t.CAFile}, {"tls.cert_file", t.CertFile}, {"tls.key_file", t.KeyFile}} {
		if f.path == "" {
			continue
		}
		if _, err := os.Stat(f.path); err != nil {
			ps.add(f.field, "cannot read %q", f.path)
		}
	}
}

// build returns the crypto/tls configuration. Errors name the file, never
// its content.
func (t TLSConfig) build() (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: t.ServerName, InsecureSkipVerify: t.InsecureSkipVerify} //nolint:gosec // opt-in, documented as test-only
	if t.MinVersion == "1.3" {
		cfg.MinVersion = tls.VersionTLS13
	}
	if t.CAFile != "" {
		pem, err := os.ReadFile(t.CAFile)
		if err != nil {
			return nil, fault.ErrInvalidConfig.WithMessage("tls.ca_file: cannot read " + t.CAFile)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fault.ErrInvalidConfig.WithMessage("tls.ca_file: no PEM certificate in " + t.CAFile)
		}
		cfg.RootCAs = pool
	}
	if t.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
		if err != nil {
			return nil, fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("tls.cert_file: cannot load the key pair %s / %s", t.CertFile, t.KeyFile))
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}
