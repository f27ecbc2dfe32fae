package mqtt

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// roundTrip subscribes through s, publishes through s and expects the
// message back.
func roundTrip(t *testing.T, s *Session) {
	t.Helper()
	ctx := testContext(t)
	topic := "gobridge-it/transport/" + unique()
	r, err := NewReceiver(s, ReceiverConfig{Subscriptions: []SubscriptionConfig{{Topic: topic}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(ctx); err != nil {
		t.Fatalf("Start: %v", err)
	}
	waitFor(ctx, t, "the subscription", func() bool { return s.Health(ctx).Subscribed })
	got := collect(t, r)
	snd, _ := NewSender(s, SenderConfig{DefaultTopic: topic})
	if err := snd.Send(ctx, ports.OutboundMessage{Envelope: messaging.NewEnvelope("x.y", []byte("over the wire"))}); err != nil {
		t.Fatal(err)
	}
	if env := next(ctx, t, got); string(env.PayloadView()) != "over the wire" || env.Subject != "x.y" {
		t.Errorf("got %q subject %q", env.PayloadView(), env.Subject)
	}
}

// writeCerts writes a CA (certificate and key) and a server certificate
// for 127.0.0.1 to dir and returns the paths of the CA, the server
// certificate and its key.
func writeCerts(t *testing.T, dir string) (ca, cert, key string) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "gobridge test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	srvKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	srvTmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		KeyUsage: x509.KeyUsageDigitalSignature}
	srvDER, err := x509.CreateCertificate(rand.Reader, srvTmpl, caCert, &srvKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(srvKey)
	caKeyDER, _ := x509.MarshalECPrivateKey(caKey)
	write := func(name, typ string, der []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("ca.key", "EC PRIVATE KEY", caKeyDER) // for client certificates
	return write("ca.pem", "CERTIFICATE", caDER), write("server.pem", "CERTIFICATE", srvDER), write("server.key", "EC PRIVATE KEY", keyDER)
}

// TestTLSSession connects with mqtts:// to a private Mosquitto that
// serves TLS with a certificate from a CA given in tls.ca_file.
func TestTLSSession(t *testing.T) {
	ca, cert, key := writeCerts(t, t.TempDir())
	b := startPrivateBroker(t, "cafile "+ca, "certfile "+cert, "keyfile "+key)
	s := newSession(t, SessionConfig{URLs: []string{"mqtts://" + b.addr}, TLS: TLSConfig{CAFile: ca, MinVersion: "1.2"}})
	roundTrip(t, s)

	// Without the CA the broker's certificate is refused.
	bad := newSession(t, SessionConfig{URLs: []string{"mqtts://" + b.addr}})
	if err := bad.Start(testContext(t)); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("Start without the CA = %v, want a certificate error", err)
	}
}

// TestWebSocketSession connects with ws:// through a WebSocket-to-TCP
// relay in front of the machine's Mosquitto (whose Debian build has no
// WebSocket listener).
func TestWebSocketSession(t *testing.T) {
	requireBroker(t)
	up := websocket.Upgrader{Subprotocols: []string{"mqtt"}}
	var sawMQTT atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sawMQTT.Store(len(websocket.Subprotocols(r)) > 0 && websocket.Subprotocols(r)[0] == "mqtt" && r.URL.Path == "/mqtt")
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer func() { _ = ws.Close() }()
		tcp, err := net.Dial("tcp", brokerAddr)
		if err != nil {
			return
		}
		defer func() { _ = tcp.Close() }()
		go func() { // broker → client; ends when either side closes
			buf := make([]byte, 32<<10)
			for {
				n, err := tcp.Read(buf)
				if n > 0 && ws.WriteMessage(websocket.BinaryMessage, buf[:n]) != nil {
					return
				}
				if err != nil {
					_ = ws.Close()
					return
				}
			}
		}()
		for {
			_, rd, err := ws.NextReader()
			if err != nil {
				return
			}
			if _, err := io.Copy(tcp, rd); err != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	s := newSession(t, SessionConfig{URLs: []string{"ws://" + strings.TrimPrefix(srv.URL, "http://") + "/mqtt"}})
	roundTrip(t, s)
	if !sawMQTT.Load() {
		t.Error("the client did not ask for the mqtt subprotocol on /mqtt")
	}
}
