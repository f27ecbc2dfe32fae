package amqp10

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// TLSConfig configures the TLS side of an amqps:// connection. With every
// field empty the system roots verify the peer and no client certificate
// is presented.
type TLSConfig struct {
	// CAFile is a PEM bundle of the authorities that may sign the peer's
	// certificate (the system roots when empty).
	CAFile string `yaml:"ca_file" json:"ca_file"`
	// CertFile and KeyFile are the client certificate and its key, in
	// PEM, for peers that authenticate clients by certificate (none).
	// With sasl external the peer derives the identity from it.
	CertFile string `yaml:"cert_file" json:"cert_file"`
	KeyFile  string `yaml:"key_file" json:"key_file"`
	// ServerName overrides the name checked against the peer's
	// certificate (the URL's host).
	ServerName string `yaml:"server_name" json:"server_name"`
	// InsecureSkipVerify accepts any peer certificate. For tests only.
	InsecureSkipVerify bool `yaml:"insecure_skip_verify" json:"insecure_skip_verify"`
}

func (t TLSConfig) configured() bool { return t != TLSConfig{} }

func (t TLSConfig) clientCert() bool { return t.CertFile != "" && t.KeyFile != "" }

// validate adds t's problems to p; scheme is the URL's.
func (t TLSConfig) validate(p *problems, scheme string) {
	if t.configured() && scheme == "amqp" {
		p.add("tls", "is only used with amqps:// URLs, the url is amqp://")
	}
	if (t.CertFile == "") != (t.KeyFile == "") {
		p.add("tls.cert_file", "cert_file and key_file go together")
	}
	for _, f := range []struct{ field, path string }{{"tls.ca_file", t.CAFile}, {"tls.cert_file", t.CertFile}, {"tls.key_file", t.KeyFile}} {
		if f.path == "" {
			continue
		}
		if _, err := os.Stat(f.path); err != nil {
			p.add(f.field, "cannot read %q", f.path)
		}
	}
}

// build returns the crypto/tls configuration for host, reading the
// files once. Errors name the file, never its content.
func (t TLSConfig) build(host string) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: host, InsecureSkipVerify: t.InsecureSkipVerify} //nolint:gosec // opt-in, documented as test-only
	if t.ServerName != "" {
		cfg.ServerName = t.ServerName
	}
	if t.CAFile != "" {
		pem, err := os.ReadFile(t.CAFile)
		if err != nil {
			return nil, fault.ErrInvalidConfig.WithMessage("tls.ca_file: cannot read " + t.CAFile).Wrap(err)
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
			return nil, fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("tls.cert_file: cannot load the key pair %s / %s", t.CertFile, t.KeyFile)).Wrap(err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

// tlsVerifyError turns a failed verification of the peer's certificate
// into a permanent error naming the host: retrying cannot help until the
// configuration or the peer's certificate changes.
func tlsVerifyError(host string, err error) error {
	var cv *tls.CertificateVerificationError
	if !errors.As(err, &cv) {
		return nil
	}
	return fault.ErrNotAuthorized.WithMessage(fmt.Sprintf(
		"amqp10: TLS with %s: the peer's certificate is not trusted (check tls.ca_file and tls.server_name)", host)).Wrap(err)
}
