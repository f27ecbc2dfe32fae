package amqp10

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// testCA is a certificate authority made for one test.
type testCA struct {
	cert   *x509.Certificate
	key    *ecdsa.PrivateKey
	pemOut string // path of the CA certificate in PEM
}

func newTestCA(t *testing.T, name string) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	path := filepath.Join(t.TempDir(), name+".pem")
	writePEM(t, path, "CERTIFICATE", der)
	return &testCA{cert: cert, key: key, pemOut: path}
}

// issue signs a leaf certificate for cn, valid for 127.0.0.1 and
// localhost, and returns it loaded plus the paths of its PEM files.
func (ca *testCA) issue(t *testing.T, cn string, usage x509.ExtKeyUsage) (tls.Certificate, string, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certPath, keyPath := filepath.Join(dir, cn+".crt"), filepath.Join(dir, cn+".key")
	writePEM(t, certPath, "CERTIFICATE", der)
	writePEM(t, keyPath, "EC PRIVATE KEY", kder)
	pair, err := tls.LoadX509KeyPair(certPath, keyPath)
	if err != nil {
		t.Fatal(err)
	}
	return pair, certPath, keyPath
}

func writePEM(t *testing.T, path, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// tlsTerminator is a TLS listener in front of a plain TCP peer (or, with
// serve set, handling connections itself). It asks for a client
// certificate signed by clientCA and records the common name of each one
// presented ("" for none).
type tlsTerminator struct {
	addr string
	wg   sync.WaitGroup

	mu      sync.Mutex
	clients []string
	conns   []net.Conn
}

func newTLSTerminator(t *testing.T, server tls.Certificate, clientCA *testCA, serve func(*tlsTerminator, *tls.Conn)) *tlsTerminator {
	t.Helper()
	cfg := &tls.Config{Certificates: []tls.Certificate{server}, ClientAuth: tls.VerifyClientCertIfGiven, MinVersion: tls.VersionTLS12}
	if clientCA != nil {
		cfg.ClientCAs = x509.NewCertPool()
		cfg.ClientCAs.AddCert(clientCA.cert)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	p := &tlsTerminator{addr: ln.Addr().String()}
	p.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.track(c)
			p.wg.Go(func() { p.handle(c.(*tls.Conn), serve) })
		}
	})
	t.Cleanup(func() {
		_ = ln.Close()
		p.mu.Lock()
		for _, c := range p.conns {
			_ = c.Close()
		}
		p.mu.Unlock()
		p.wg.Wait()
	})
	return p
}

func (p *tlsTerminator) track(c net.Conn) {
	p.mu.Lock()
	p.conns = append(p.conns, c)
	p.mu.Unlock()
}

func (p *tlsTerminator) handle(c *tls.Conn, serve func(*tlsTerminator, *tls.Conn)) {
	defer c.Close()
	if err := c.Handshake(); err != nil {
		return
	}
	cn := ""
	if certs := c.ConnectionState().PeerCertificates; len(certs) > 0 {
		cn = certs[0].Subject.CommonName
	}
	p.mu.Lock()
	p.clients = append(p.clients, cn)
	p.mu.Unlock()
	serve(p, c)
}

// clientNames returns the client certificate names seen so far.
func (p *tlsTerminator) clientNames() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.clients...)
}

// forwardTo returns a serve function that pipes the connection to a
// plain TCP peer at target.
func forwardTo(target string) func(*tlsTerminator, *tls.Conn) {
	return func(p *tlsTerminator, c *tls.Conn) {
		up, err := net.Dial("tcp", target)
		if err != nil {
			return
		}
		p.track(up)
		defer up.Close()
		done := make(chan struct{})
		go func() { defer close(done); _, _ = io.Copy(up, c); _ = up.Close() }()
		_, _ = io.Copy(c, up)
		_ = c.Close()
		<-done
	}
}
