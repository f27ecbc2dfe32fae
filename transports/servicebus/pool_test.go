package servicebus

import (
	"context"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus"

	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/registry"
)

// countingPool is a pool that counts the clients it opens.
func countingPool(opens *int) *clientPool {
	p := newClientPool()
	p.open = func(c ClientConfig) (*azservicebus.Client, error) {
		*opens++
		return NewClient(c)
	}
	return p
}

// Components with the same client settings share one client; a
// different setting gets its own; the client is closed with the last
// component holding it, and a later component opens a new one.
func TestPoolSharesOneClientPerSetting(t *testing.T) {
	opens := 0
	pool := countingPool(&opens)
	rf, sf := receiverFactory(pool), senderFactory(pool)
	other := testConnString + ";EntityPath=x"
	build := func(f registry.Factory, settings map[string]any) any {
		t.Helper()
		cfg, err := f.Decode(settings)
		if err != nil {
			t.Fatalf("Decode: %v", err)
		}
		var c any
		switch f := f.(type) {
		case registry.ReceiverFactory:
			c, err = f.Build(t.Context(), cfg, registry.Settings{ID: "in"})
		case registry.SenderFactory:
			c, err = f.Build(t.Context(), cfg, registry.Settings{ID: "out"})
		}
		if err != nil {
			t.Fatalf("Build: %v", err)
		}
		return c
	}
	client := map[string]any{"connection_string": testConnString}
	r := build(rf, map[string]any{"queue": "a", "client": client}).(*Receiver)
	s := build(sf, map[string]any{"entity": "b", "client": client}).(*Sender)
	o := build(sf, map[string]any{"entity": "b", "client": map[string]any{"connection_string": other}}).(*Sender)
	if r.client != s.client {
		t.Error("a receiver and a sender with the same client settings got two clients")
	}
	if o.client == s.client {
		t.Error("different client settings shared a client")
	}
	if opens != 2 {
		t.Errorf("opened %d clients, want 2", opens)
	}
	for _, c := range []ports.Closer{r, s, s, o} { // s twice: a second Close gives nothing back
		if err := c.Close(t.Context()); err != nil {
			t.Errorf("Close: %v", err)
		}
	}
	if n := len(pool.clients); n != 0 {
		t.Errorf("%d clients still pooled after every component closed", n)
	}
	again := build(rf, map[string]any{"queue": "a", "client": client}).(*Receiver)
	defer again.Close(t.Context())
	if opens != 3 {
		t.Errorf("after the last close, a new receiver opened %d clients in all, want 3", opens)
	}
}

// A receiver closing does not close the client under a sender that
// shares it: the sender still delivers.
func TestSharedClientOutlivesTheReceiver(t *testing.T) {
	_, cc := startEmulator(t, queue("in", 5*time.Second), queue("out", 5*time.Second))
	fs := Factories()
	rf, sf := fs[0].(registry.ReceiverFactory), fs[1].(registry.SenderFactory)
	client := map[string]any{"connection_string": cc.ConnectionString}
	rcfg, err := rf.Decode(map[string]any{"queue": "in", "client": client})
	if err != nil {
		t.Fatal(err)
	}
	scfg, err := sf.Decode(map[string]any{"entity": "out", "client": client})
	if err != nil {
		t.Fatal(err)
	}
	r, err := rf.Build(t.Context(), rcfg, registry.Settings{ID: "in"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := sf.Build(t.Context(), scfg, registry.Settings{ID: "out"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.(ports.Closer).Close(context.Background())
	if r.(*Receiver).client != s.(*Sender).client {
		t.Fatal("the distro's factories did not share the client")
	}
	if err := r.(ports.Closer).Close(t.Context()); err != nil {
		t.Fatalf("receiver Close: %v", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := s.Send(ctx, ports.OutboundMessage{Envelope: messaging.NewEnvelope("s", []byte("after"))}); err != nil {
		t.Fatalf("Send after the receiver closed: %v", err)
	}
	got, err := newDrain(t, newTestClient(t, cc)).next(ctx, "out")
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Body) != "after" {
		t.Errorf("received %q, want %q", got.Body, "after")
	}
}
