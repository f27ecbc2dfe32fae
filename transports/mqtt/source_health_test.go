package mqtt

import (
	"context"
	"testing"
	"time"
)

// TestReceiverSourceHealth: a receiver's source is converged once its
// session is connected with the subscription in place, and no longer
// once the session or the receiver is closed.
func TestReceiverSourceHealth(t *testing.T) {
	requireBroker(t)
	ctx := testContext(t)
	s := newSession(t, SessionConfig{})
	r, err := NewReceiver(s, ReceiverConfig{Subscriptions: []SubscriptionConfig{{Topic: "health/" + unique()}}})
	if err != nil {
		t.Fatal(err)
	}
	if h := r.SourceHealth(); h.Converged {
		t.Fatalf("converged before the session started: %+v", h)
	}
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, "a converged source", func() bool { return r.SourceHealth().Converged })
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := s.Close(cctx); err != nil {
		t.Fatal(err)
	}
	if h := r.SourceHealth(); h.Converged {
		t.Fatalf("converged after the session closed: %+v", h)
	}
}
