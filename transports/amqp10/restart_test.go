package amqp10

import (
	"context"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// TestLinksRecoverAfterPeerRestart kills the Proton broker and starts it
// again: sends during the outage fail transient, and afterwards the
// session reconnects, the sender attaches again, and the receiver
// re-attaches and gets what is sent.
func TestLinksRecoverAfterPeerRestart(t *testing.T) {
	p := protonPeer(t)
	q := p.queue(t)
	sess := newTestSession(t, p)
	s, err := NewSender(sess, SenderConfig{Address: q})
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReceiver(sess, ReceiverConfig{Address: q})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	got := make(chan string, 16)
	runCtx, stop := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() {
		ran <- r.Run(runCtx, func(ctx context.Context, d ports.Delivery) error {
			got <- string(d.Envelope().PayloadView())
			return d.Ack(ctx)
		})
	}()
	defer func() { stop(); <-ran }()
	send := func(payload string, within time.Duration) error {
		sctx, cancel := context.WithTimeout(ctx, within)
		defer cancel()
		return s.Send(sctx, ports.OutboundMessage{Envelope: messaging.NewEnvelope("restart", []byte(payload))})
	}
	expect := func(want string) {
		t.Helper()
		select {
		case v := <-got:
			if v != want {
				t.Fatalf("received %q, want %q", v, want)
			}
		case <-ctx.Done():
			t.Fatalf("%q never arrived", want)
		}
	}
	if err := send("before", 5*time.Second); err != nil {
		t.Fatalf("Send before the restart: %v", err)
	}
	expect("before")

	p.restart(t)
	var sendErr error
	for {
		if sendErr = send("after", time.Second); sendErr == nil {
			break
		}
		if !fault.IsRecoverable(sendErr) {
			t.Fatalf("Send across the restart = %v; want a transient error", sendErr)
		}
		if ctx.Err() != nil {
			t.Fatalf("Send never succeeded after the restart: %v", sendErr)
		}
	}
	expect("after")
}
