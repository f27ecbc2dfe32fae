package amqp10

import (
	"context"
	"crypto/x509"
	"fmt"
	"testing"
	"time"

	amqp "github.com/Azure/go-amqp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// TestSASLExternalAgainstRabbitMQ logs in to a real broker with SASL
// EXTERNAL: a RabbitMQ node of the test's own with a TLS listener that
// requires a client certificate signed by the test's CA, the
// rabbitmq_auth_mechanism_ssl plugin, and the user named by the
// certificate's common name (the user has no password). A session with
// that certificate sends a message that is read back; a certificate from
// the same CA naming no user is refused as NOT_AUTHORIZED, so the
// identity comes from the certificate.
func TestSASLExternalAgainstRabbitMQ(t *testing.T) {
	ca := newTestCA(t, "it-ca")
	_, serverCrt, serverKey := ca.issue(t, "localhost", x509.ExtKeyUsageServerAuth)
	_, userCrt, userKey := ca.issue(t, "gobridge-client", x509.ExtKeyUsageClientAuth)
	_, strangerCrt, strangerKey := ca.issue(t, "stranger", x509.ExtKeyUsageClientAuth)
	node := startRMQNode(t, &rmqTLS{caFile: ca.pemOut, certFile: serverCrt, keyFile: serverKey, users: []string{"gobridge-client"}})
	plain := rabbitPeerAt(t, "external-admin", node.url091(), SessionConfig{URL: node.url(), Username: "guest", Password: "guest"})
	addr := plain.queue(t)

	external := func(crt, key string) SessionConfig {
		return SessionConfig{URL: fmt.Sprintf("amqps://127.0.0.1:%d", node.tlsPort), SASL: SASLExternal,
			DialTimeout: 10 * time.Second, TLS: TLSConfig{CAFile: ca.pemOut, CertFile: crt, KeyFile: key}}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()

	t.Run("certificate of a user", func(t *testing.T) {
		p := plain
		p.name, p.cfg = "external", external(userCrt, userKey)
		snd, err := NewSender(newTestSession(t, p), SenderConfig{Address: addr})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = snd.Close(context.Background()) })
		if err := snd.Send(ctx, ports.OutboundMessage{Envelope: messaging.NewEnvelope("s", []byte("via external"))}); err != nil {
			t.Fatalf("Send after SASL EXTERNAL: %v", err)
		}
		r, err := newRawClient(t, plain).sess.NewReceiver(ctx, addr, &amqp.ReceiverOptions{Credit: 1})
		if err != nil {
			t.Fatal(err)
		}
		m, err := r.Receive(ctx, nil)
		if err != nil {
			t.Fatalf("read back: %v", err)
		}
		_ = r.AcceptMessage(ctx, m)
		if got := string(m.GetData()); got != "via external" {
			t.Errorf("payload %q, want %q", got, "via external")
		}
	})

	t.Run("certificate of no user", func(t *testing.T) {
		s, err := NewSession(external(strangerCrt, strangerKey), WithName("stranger"))
		if err != nil {
			t.Fatal(err)
		}
		err = s.Start(ctx)
		cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer ccancel()
		_ = s.Close(cctx)
		if err == nil {
			t.Fatal("a certificate naming no user logged in")
		}
		if code := fault.CodeOf(err); code != fault.CodeOf(fault.ErrNotAuthorized) {
			t.Errorf("Start = %v (code %s), want NOT_AUTHORIZED", err, code)
		}
	})
}
