package servicebus

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus"

	"github.com/gobridge-oss/gobridge/core/conformance"
	"github.com/gobridge-oss/gobridge/transports/servicebus/sbemu"
)

// startEmulator starts the Service Bus emulator with entities for t (it
// skips t when the emulator cannot run, or fails it under
// GOBRIDGE_REQUIRE_IT) and returns the client config that reaches it.
func startEmulator(t testing.TB, entities ...sbemu.Entity) (*sbemu.Emulator, ClientConfig) {
	t.Helper()
	e := sbemu.StartForTest(t, sbemu.Options{Entities: entities, Logf: func(string, ...any) {}})
	return e, ClientConfig{ConnectionString: e.ConnectionString()}
}

// queue is an emulator queue with a short lock.
func queue(name string, lock time.Duration) sbemu.Entity {
	return sbemu.Entity{Name: name, LockDuration: lock, MaxDeliveryCount: 100}
}

// newTestClient builds a client for cc and closes it when t ends.
func newTestClient(t testing.TB, cc ClientConfig) *azservicebus.Client {
	t.Helper()
	c, err := NewClient(cc)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = c.Close(ctx)
	})
	return c
}

// drain reads entities with plain SDK receivers, completing what it
// reads, for the conformance targets.
type drain struct {
	c   *azservicebus.Client
	mu  sync.Mutex
	rcv map[string]*azservicebus.Receiver
	buf map[string][]*azservicebus.ReceivedMessage
}

func newDrain(t testing.TB, c *azservicebus.Client) *drain {
	d := &drain{c: c, rcv: map[string]*azservicebus.Receiver{}, buf: map[string][]*azservicebus.ReceivedMessage{}}
	t.Cleanup(func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		for _, r := range d.rcv {
			_ = r.Close(context.Background())
		}
	})
	return d
}

func (d *drain) receiver(entity string) (*azservicebus.Receiver, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if r, ok := d.rcv[entity]; ok {
		return r, nil
	}
	r, err := d.c.NewReceiverForQueue(entity, nil)
	if err != nil {
		return nil, err
	}
	d.rcv[entity] = r
	return r, nil
}

// next returns the next message at entity, completed.
func (d *drain) next(ctx context.Context, entity string) (*azservicebus.ReceivedMessage, error) {
	for {
		d.mu.Lock()
		if b := d.buf[entity]; len(b) > 0 {
			m := b[0]
			d.buf[entity] = b[1:]
			d.mu.Unlock()
			return m, nil
		}
		d.mu.Unlock()
		r, err := d.receiver(entity)
		if err != nil {
			return nil, err
		}
		msgs, err := r.ReceiveMessages(ctx, 10, nil)
		if err != nil {
			return nil, err
		}
		for _, m := range msgs {
			if err := r.CompleteMessage(ctx, m, nil); err != nil {
				return nil, err
			}
		}
		d.mu.Lock()
		d.buf[entity] = append(d.buf[entity], msgs...)
		d.mu.Unlock()
	}
}

// receive is the conformance targets' Receive.
func (d *drain) receive(ctx context.Context, entity string) (conformance.Received, error) {
	m, err := d.next(ctx, entity)
	if err != nil {
		return conformance.Received{}, err
	}
	env := fromReceived(m, time.Now())
	return conformance.Received{Subject: env.Subject, Payload: env.Payload(), Headers: env.Headers}, nil
}

// pollUntil calls cond every 20ms until it holds or the deadline passes.
func pollUntil(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(within)
	for !cond() {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("timed out after %v waiting for %s", within, what)
		}
	}
}
