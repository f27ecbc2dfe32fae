package mqttio

import (
	"context"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/eclipse/paho.golang/paho"

	"github.com/gobridge-oss/gobridge/tools/bench"
)

// Connect opens an MQTT v5 connection as clientID. With clean, the broker
// discards any session it kept for clientID; expiry is the session expiry
// interval asked for; receiveMax 0 keeps the library's default.
func Connect(ctx context.Context, addr, clientID string, clean bool, expiry time.Duration, receiveMax int,
	onPublish func(paho.PublishReceived) (bool, error)) (*paho.Client, error) {
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("mqttio: dial %s: %w", addr, err)
	}
	cfg := paho.ClientConfig{ClientID: clientID, Conn: conn, PacketTimeout: 30 * time.Second}
	if onPublish != nil {
		cfg.EnableManualAcknowledgment = true
		cfg.OnPublishReceived = []func(paho.PublishReceived) (bool, error){onPublish}
	}
	c := paho.NewClient(cfg)
	exp := uint32(expiry / time.Second)
	cp := &paho.Connect{ClientID: clientID, KeepAlive: 30, CleanStart: clean,
		Properties: &paho.ConnectProperties{SessionExpiryInterval: &exp}}
	if receiveMax > 0 {
		rm := uint16(min(receiveMax, 65535))
		cp.Properties.ReceiveMaximum = &rm
	}
	ca, err := c.Connect(ctx, cp)
	if err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("mqttio: connect %s: %w", clientID, err)
	}
	if ca.ReasonCode != 0 {
		_ = conn.Close()
		return nil, fmt.Errorf("mqttio: connect %s: reason %d", clientID, ca.ReasonCode)
	}
	return c, nil
}

// PrepareSession discards what the broker kept for clientID and leaves a
// fresh session behind, subscribed to topic at QoS 1 and kept for expiry
// after this disconnection, so that messages published next queue for the
// forwarder that connects as clientID without a clean start.
func PrepareSession(ctx context.Context, addr, clientID, topic string, expiry time.Duration) error {
	c, err := Connect(ctx, addr, clientID, true, expiry, 0, nil)
	if err != nil {
		return err
	}
	sa, err := c.Subscribe(ctx, &paho.Subscribe{Subscriptions: []paho.SubscribeOptions{{Topic: topic, QoS: 1}}})
	if err == nil && len(sa.Reasons) == 1 && sa.Reasons[0] >= 0x80 {
		err = fmt.Errorf("mqttio: subscribe %s refused: %d", topic, sa.Reasons[0])
	}
	_ = c.Disconnect(&paho.Disconnect{ReasonCode: 0})
	return err
}

// Load describes what the MQTT load generator publishes.
type Load struct {
	Run     uint64
	N       int
	Size    int
	QoS     byte // 0, 1 or 2
	Workers int  // concurrent publishers on the one connection (default 64)
	Rate    int  // messages per second; 0 publishes as fast as the broker acknowledges
}

// Publish sends l.N messages to topic and returns once the broker
// acknowledged every QoS 1/2 one.
func Publish(ctx context.Context, addr, clientID, topic string, l Load) error {
	c, err := Connect(ctx, addr, clientID, true, 0, 0, nil)
	if err != nil {
		return err
	}
	defer func() { _ = c.Disconnect(&paho.Disconnect{ReasonCode: 0}) }()
	workers := l.Workers
	if workers <= 0 {
		workers = 64
	}
	var next atomic.Int64
	pace := bench.NewPacer(l.Rate)
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(l.N) {
					return
				}
				if err := pace.Wait(ctx, int(i)); err != nil {
					errs <- err
					return
				}
				body := bench.Encode(bench.Stamp{Run: l.Run, Seq: uint64(i), Sent: time.Now()}, l.Size)
				if _, err := c.Publish(ctx, &paho.Publish{Topic: topic, QoS: l.QoS, Payload: body}); err != nil {
					errs <- fmt.Errorf("mqttio: publish %d: %w", i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}
