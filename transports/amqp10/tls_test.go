package amqp10

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"io"
	"net/url"
	"strings"
	"testing"
	"time"

	amqp "github.com/Azure/go-amqp"
	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// rabbitTCP is the host:port of the shared RabbitMQ's AMQP 1.0 listener.
func rabbitTCP(t *testing.T, p peer) string {
	t.Helper()
	u, err := url.Parse(p.cfg.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// TestTLSThroughTerminatingProxy runs amqps against RabbitMQ behind an
// in-test TLS terminator whose certificate a test CA signed: the CA
// configured in tls.ca_file is trusted, another CA is refused with an
// error naming the URL's host, and the client certificate is presented
// exactly when tls.cert_file and tls.key_file are set.
func TestTLSThroughTerminatingProxy(t *testing.T) {
	rabbit := rabbitPeer(t)
	serverCA, clientCA, otherCA := newTestCA(t, "server-ca"), newTestCA(t, "client-ca"), newTestCA(t, "other-ca")
	serverCert, _, _ := serverCA.issue(t, "broker", x509.ExtKeyUsageServerAuth)
	_, clientCrt, clientKey := clientCA.issue(t, "gobridge-client", x509.ExtKeyUsageClientAuth)

	tests := []struct {
		name        string
		tls         TLSConfig
		wantCode    fault.Code // "" for a working connection
		wantClients []string   // client certificate names the terminator saw
	}{
		{"trusted CA", TLSConfig{CAFile: serverCA.pemOut}, "", []string{""}},
		{"trusted CA with a client certificate", TLSConfig{CAFile: serverCA.pemOut, CertFile: clientCrt, KeyFile: clientKey},
			"", []string{"gobridge-client"}},
		{"server name override", TLSConfig{CAFile: serverCA.pemOut, ServerName: "localhost"}, "", []string{""}},
		{"unknown CA", TLSConfig{CAFile: otherCA.pemOut}, fault.CodeNotAuthorized, nil},
		{"name not in the certificate", TLSConfig{CAFile: serverCA.pemOut, ServerName: "elsewhere.example"}, fault.CodeNotAuthorized, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			term := newTLSTerminator(t, serverCert, clientCA, forwardTo(rabbitTCP(t, rabbit)))
			cfg := rabbit.cfg
			cfg.URL = "amqps://" + term.addr
			cfg.TLS = tt.tls
			cfg.DialTimeout = 5 * time.Second
			s, err := NewSession(cfg)
			if err != nil {
				t.Fatalf("NewSession: %v", err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			conn, err := s.dial(ctx)
			if tt.wantCode != "" {
				if err == nil {
					_ = conn.Close()
					t.Fatal("dial succeeded")
				}
				if got := fault.CodeOf(err); got != tt.wantCode {
					t.Errorf("code %s, want %s (%v)", got, tt.wantCode, err)
				}
				t.Logf("refused: %v", err)
				if !strings.Contains(err.Error(), term.addr) || !strings.Contains(err.Error(), "not trusted") {
					t.Errorf("error %q does not name the host %s and the cause", err, term.addr)
				}
				return
			}
			if err != nil {
				t.Fatalf("dial: %v", err)
			}
			_ = conn.Close()
			if diff := cmp.Diff(tt.wantClients, term.clientNames()); diff != "" {
				t.Errorf("client certificates seen by the peer (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTLSSessionSendsThroughTerminatingProxy proves a started session on
// amqps carries deliveries end to end: a message sent through the TLS
// terminator is accepted by RabbitMQ and read back over plain AMQP.
func TestTLSSessionSendsThroughTerminatingProxy(t *testing.T) {
	rabbit := rabbitPeer(t)
	ca := newTestCA(t, "server-ca")
	serverCert, _, _ := ca.issue(t, "broker", x509.ExtKeyUsageServerAuth)
	term := newTLSTerminator(t, serverCert, nil, forwardTo(rabbitTCP(t, rabbit)))
	addr := rabbit.queue(t)
	p := rabbit
	p.name = "rabbitmq-tls"
	p.cfg.URL = "amqps://" + term.addr
	p.cfg.TLS = TLSConfig{CAFile: ca.pemOut}
	s := newTestSession(t, p)
	snd, err := NewSender(s, SenderConfig{Address: addr})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = snd.Close(context.Background()) })
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	env := messaging.NewEnvelope("s", []byte("over tls"))
	if err := snd.Send(ctx, ports.OutboundMessage{Envelope: env}); err != nil {
		t.Fatalf("Send over amqps: %v", err)
	}
	raw := newRawClient(t, rabbit)
	r, err := raw.sess.NewReceiver(ctx, addr, &amqp.ReceiverOptions{Credit: 10})
	if err != nil {
		t.Fatal(err)
	}
	m, err := r.Receive(ctx, nil)
	if err != nil {
		t.Fatalf("read back: %v", err)
	}
	if got := string(m.GetData()); got != "over tls" {
		t.Errorf("payload %q", got)
	}
	_ = r.AcceptMessage(ctx, m)
}

// TestSASLExternalOverMutualTLS dials a fake AMQP 1.0 peer behind TLS
// that offers PLAIN, ANONYMOUS and EXTERNAL and records the mechanism the
// client picks: with sasl external the client presents its certificate
// and answers EXTERNAL, then goes on to the AMQP header. No peer on this
// machine offers EXTERNAL over TLS, so the SASL exchange ends there.
func TestSASLExternalOverMutualTLS(t *testing.T) {
	serverCA, clientCA := newTestCA(t, "server-ca"), newTestCA(t, "client-ca")
	serverCert, _, _ := serverCA.issue(t, "broker", x509.ExtKeyUsageServerAuth)
	_, clientCrt, clientKey := clientCA.issue(t, "gobridge-client", x509.ExtKeyUsageClientAuth)
	seen := make(chan string, 1)
	term := newTLSTerminator(t, serverCert, clientCA, func(_ *tlsTerminator, c *tls.Conn) { seen <- fakeSASLPeer(c) })
	s, err := NewSession(SessionConfig{URL: "amqps://" + term.addr, SASL: SASLExternal, DialTimeout: 5 * time.Second,
		TLS: TLSConfig{CAFile: serverCA.pemOut, CertFile: clientCrt, KeyFile: clientKey}})
	if err != nil {
		t.Fatalf("NewSession: %v", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if conn, err := s.dial(ctx); err == nil {
		_ = conn.Close()
	}
	select {
	case got := <-seen:
		if got != "EXTERNAL then AMQP" {
			t.Errorf("the peer saw %q, want the EXTERNAL mechanism followed by the AMQP header", got)
		}
	case <-ctx.Done():
		t.Fatal("the fake peer saw no SASL exchange")
	}
	if diff := cmp.Diff([]string{"gobridge-client"}, term.clientNames()); diff != "" {
		t.Errorf("client certificates (-want +got):\n%s", diff)
	}
}

// fakeSASLPeer speaks the server side of an AMQP 1.0 SASL exchange that
// succeeds, and describes what the client did.
func fakeSASLPeer(c *tls.Conn) string {
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	saslHeader := []byte("AMQP\x03\x01\x00\x00")
	hdr := make([]byte, 8)
	if _, err := io.ReadFull(c, hdr); err != nil || !bytes.Equal(hdr, saslHeader) {
		return "no SASL header"
	}
	mechs := []byte{0xe0, 0, 3, 0xa3} // array8: size, count, sym8
	for _, m := range []string{"PLAIN", "ANONYMOUS", "EXTERNAL"} {
		mechs = append(mechs, byte(len(m)))
		mechs = append(mechs, m...)
	}
	mechs[1] = byte(len(mechs) - 2)
	body := append([]byte{0x00, 0x53, 0x40, 0xc0, byte(len(mechs) + 1), 1}, mechs...) // sasl-mechanisms
	_, _ = c.Write(saslHeader)
	_, _ = c.Write(saslFrame(body))
	size := make([]byte, 4)
	if _, err := io.ReadFull(c, size); err != nil {
		return "no sasl-init"
	}
	frame := make([]byte, binary.BigEndian.Uint32(size)-4)
	if _, err := io.ReadFull(c, frame); err != nil || len(frame) < 7 || frame[4] != 0x00 || frame[5] != 0x53 || frame[6] != 0x41 {
		return "no sasl-init"
	}
	var picked []string
	for _, m := range []string{"PLAIN", "ANONYMOUS", "EXTERNAL"} {
		if bytes.Contains(frame, []byte(m)) {
			picked = append(picked, m)
		}
	}
	_, _ = c.Write(saslFrame([]byte{0x00, 0x53, 0x44, 0xc0, 0x03, 0x01, 0x50, 0x00})) // sasl-outcome ok
	if _, err := io.ReadFull(c, hdr); err != nil || !bytes.Equal(hdr, []byte("AMQP\x00\x01\x00\x00")) {
		return strings.Join(picked, ",") + " then nothing"
	}
	return strings.Join(picked, ",") + " then AMQP"
}

func saslFrame(body []byte) []byte {
	f := binary.BigEndian.AppendUint32(nil, uint32(8+len(body)))
	f = append(f, 2, 1, 0, 0) // doff 2, type SASL, channel 0
	return append(f, body...)
}
