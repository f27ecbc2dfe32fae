package service

import (
	"context"
	"testing"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// fakeSource is a receiver that reports its source health, or not.
type fakeSource struct {
	ports.Receiver
	h ports.SourceHealth
}

func (f fakeSource) SourceHealth() ports.SourceHealth { return f.h }

// plainReceiver reports nothing.
type plainReceiver struct{ ports.Receiver }

// fakeSession reports h.
type fakeSession struct {
	ports.Session
	h ports.SessionHealth
}

func (s fakeSession) Health(context.Context) ports.SessionHealth { return s.h }

func TestSourceProbe(t *testing.T) {
	up := ports.SessionHealth{Connected: true, Subscribed: true, Detail: "up"}
	connected := ports.SessionHealth{Connected: true, Detail: "subscribing"}
	down := ports.SessionHealth{Detail: "down"}
	for _, tc := range []struct {
		name                 string
		recv                 ports.Receiver
		sess                 ports.Session
		converged, reachable bool
	}{
		{"consuming receiver", fakeSource{h: ports.SourceHealth{Converged: true}}, fakeSession{h: up}, true, true},
		{"receiver lost its consumer, session up", fakeSource{h: ports.SourceHealth{Detail: "not consuming"}}, fakeSession{h: up}, false, true},
		{"session down", fakeSource{h: ports.SourceHealth{}}, fakeSession{h: down}, false, false},
		{"silent receiver, subscribed session", plainReceiver{}, fakeSession{h: up}, true, true},
		{"silent receiver, session not re-subscribed", plainReceiver{}, fakeSession{h: connected}, false, true},
		{"silent receiver, session down", plainReceiver{}, fakeSession{h: down}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &sourceProbe{sess: tc.sess, recv: tc.recv}
			if got, _ := p.Converged(); got != tc.converged {
				t.Errorf("Converged = %v, want %v", got, tc.converged)
			}
			if got := p.Reachable(); got != tc.reachable {
				t.Errorf("Reachable = %v, want %v", got, tc.reachable)
			}
		})
	}
}
