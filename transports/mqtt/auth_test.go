package mqtt

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/itest"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// TestCredentials runs a private Mosquitto that wants a password: wrong
// credentials are a permanent NOT_AUTHORIZED that does not repeat the
// password, and the right ones connect.
func TestCredentials(t *testing.T) {
	dir := t.TempDir()
	pw := filepath.Join(dir, "passwd")
	if out, err := exec.Command("mosquitto_passwd", "-c", "-b", pw, "bridge", "s3cret-pw").CombinedOutput(); err != nil {
		itest.Unavailable(t, "mosquitto_passwd: %v %s", err, out)
	}
	b := startPrivateBroker(t, "allow_anonymous false", "password_file "+pw)
	ctx := testContext(t)
	bad := newSession(t, SessionConfig{URLs: []string{b.url()}, Username: "bridge", Password: "wrong-pw"})
	err := bad.Start(ctx)
	if fault.CodeOf(err) != fault.CodeNotAuthorized || strings.Contains(err.Error(), "wrong-pw") {
		t.Errorf("Start with a wrong password = %v; want NOT_AUTHORIZED without the password in it", err)
	}
	if h := bad.Health(ctx); h.Connected {
		t.Errorf("health %+v after a refused connection", h)
	}
	roundTrip(t, newSession(t, SessionConfig{URLs: []string{b.url()}, Username: "bridge", Password: "s3cret-pw"}))
}

// TestRefusedSubscription uses the fake broker to refuse every
// subscription with 0x87 (Mosquitto grants forbidden subscriptions and
// filters on delivery): the session stays degraded and Reconcile reports
// NOT_AUTHORIZED.
func TestRefusedSubscription(t *testing.T) {
	ctx := testContext(t)
	fb := startFakeBrokerWith(t, nil, 0x87)
	s := newSession(t, SessionConfig{URLs: []string{fb.url()}})
	if _, err := NewReceiver(s, ReceiverConfig{Subscriptions: []SubscriptionConfig{{Topic: "a/b"}}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Reconcile(ctx, ports.SessionPlan{}); fault.CodeOf(err) != fault.CodeNotAuthorized {
		t.Errorf("Reconcile = %v, want NOT_AUTHORIZED", err)
	}
	h := s.Health(ctx)
	if h.Status != ports.SessionDegraded || h.Subscribed || !strings.Contains(h.Detail, "1 of 1") {
		t.Errorf("health %+v, want degraded with the subscription missing", h)
	}
}

// TestTLSClientCertificate runs a private Mosquitto that requires a
// client certificate from the test CA.
func TestTLSClientCertificate(t *testing.T) {
	dir := t.TempDir()
	ca, cert, key := writeCerts(t, dir)
	clientCert, clientKey := writeClientCert(t, dir, ca)
	b := startPrivateBroker(t, "cafile "+ca, "certfile "+cert, "keyfile "+key, "require_certificate true")
	s := newSession(t, SessionConfig{URLs: []string{"ssl://" + b.addr},
		TLS: TLSConfig{CAFile: ca, CertFile: clientCert, KeyFile: clientKey, ServerName: "127.0.0.1", MinVersion: "1.3"}})
	roundTrip(t, s)

	without := newSession(t, SessionConfig{URLs: []string{"tls://" + b.addr}, TLS: TLSConfig{CAFile: ca}})
	if err := without.Start(testContext(t)); err == nil {
		t.Error("a session without a client certificate connected")
	}
}

// writeClientCert issues a client certificate from the CA in caPath (its
// key is next to it, see writeCerts) and returns the certificate and key
// paths.
func writeClientCert(t *testing.T, dir, caPath string) (string, string) {
	t.Helper()
	caPair, err := tls.LoadX509KeyPair(caPath, filepath.Join(dir, "ca.key"))
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caPair.Certificate[0])
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(3), Subject: pkix.Name{CommonName: "gobridge client"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &k.PublicKey, caPair.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalECPrivateKey(k)
	cp, kp := filepath.Join(dir, "client.pem"), filepath.Join(dir, "client.key")
	if err := os.WriteFile(cp, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(kp, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	return cp, kp
}
