package amqp10

import (
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/registry"
)

func TestFactoriesDecodeAndBuild(t *testing.T) {
	r := registry.New()
	if err := r.Add(SessionFactory(), ReceiverFactory(), SenderFactory()); err != nil {
		t.Fatal(err)
	}
	sf, _ := r.Session(FactoryType)
	scfg, err := sf.Decode(map[string]any{"url": "amqp://127.0.0.1:1", "idle_timeout": "5s", "reconnect": map[string]any{"max": "2s"}})
	if err != nil {
		t.Fatalf("session Decode: %v", err)
	}
	if got := scfg.(SessionConfig); got.IdleTimeout != 5*time.Second || got.Reconnect.Max != 2*time.Second {
		t.Errorf("decoded session config %+v", got)
	}
	sess, err := sf.Build(t.Context(), scfg, registry.Settings{ID: "s1"})
	if err != nil {
		t.Fatalf("session Build: %v", err)
	}
	rf, _ := r.Receiver(FactoryType)
	rcfg, err := rf.Decode(map[string]any{"address": "/amq/queue/q", "retry": "released"})
	if err != nil {
		t.Fatalf("receiver Decode: %v", err)
	}
	rc, err := rf.Build(t.Context(), rcfg, registry.Settings{ID: "r1", Session: sess, MaxInFlight: 7})
	if err != nil {
		t.Fatalf("receiver Build: %v", err)
	}
	if got := rc.(*Receiver).credit; got != 7 {
		t.Errorf("credit %d, want the route's max_in_flight 7", got)
	}
	if _, err := rf.Decode(map[string]any{"retry": "sometimes"}); err == nil {
		t.Error("receiver Decode accepted an invalid config")
	}
	if _, err := rf.Build(t.Context(), rcfg, registry.Settings{ID: "r2"}); err == nil {
		t.Error("receiver Build without a session succeeded")
	}
	xf, _ := r.Sender(FactoryType)
	xcfg, err := xf.Decode(map[string]any{"address": "/amq/queue/q", "durable": false})
	if err != nil {
		t.Fatalf("sender Decode: %v", err)
	}
	x, err := xf.Build(t.Context(), xcfg, registry.Settings{ID: "x1", Session: sess})
	if err != nil {
		t.Fatalf("sender Build: %v", err)
	}
	if x.(*Sender).durable {
		t.Error("durable: false was not honoured")
	}
}
