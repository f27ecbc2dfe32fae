package mqtt

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// fakeBroker is a hand-written MQTT server for fault tests: it accepts
// connections, answers CONNECT with a CONNACK and SUBSCRIBE with a SUBACK,
// and then sends the packet under test. It counts connections.
type fakeBroker struct {
	ln     net.Listener
	bad    []byte // sent after the first SUBSCRIBE; nil: serve SUBSCRIBE and PINGREQ only
	suback byte   // reason code for every subscription
	conns  atomic.Int32
	wg     sync.WaitGroup
}

func startFakeBroker(t *testing.T, bad []byte) *fakeBroker {
	t.Helper()
	return startFakeBrokerWith(t, bad, 0x01)
}

func startFakeBrokerWith(t *testing.T, bad []byte, suback byte) *fakeBroker {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fb := &fakeBroker{ln: ln, bad: bad, suback: suback}
	fb.wg.Go(fb.accept)
	t.Cleanup(func() {
		_ = ln.Close()
		fb.wg.Wait()
	})
	return fb
}

func (fb *fakeBroker) url() string { return "mqtt://" + fb.ln.Addr().String() }

func (fb *fakeBroker) accept() {
	for {
		c, err := fb.ln.Accept()
		if err != nil {
			return
		}
		fb.conns.Add(1)
		fb.wg.Go(func() { fb.serve(c) })
	}
}

// serve handles one client: CONNACK, then the bad packet right after the
// first SUBSCRIBE (or at once when the client subscribes to nothing
// within a moment), then it reads until the client hangs up.
func (fb *fakeBroker) serve(c net.Conn) {
	defer func() { _ = c.Close() }()
	_ = c.SetDeadline(time.Now().Add(testTimeout))
	if _, _, err := readRawPacket(c); err != nil { // CONNECT
		return
	}
	if _, err := c.Write([]byte{0x20, 0x03, 0x00, 0x00, 0x00}); err != nil {
		return
	}
	if fb.bad == nil {
		for {
			first, body, err := readRawPacket(c)
			if err != nil {
				return
			}
			switch first >> 4 {
			case 8:
				_, _ = c.Write(fb.subackFor(body))
			case 12:
				_, _ = c.Write([]byte{0xD0, 0x00})
			}
		}
	}
	_ = c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	if first, body, err := readRawPacket(c); err == nil && first>>4 == 8 {
		_, _ = c.Write(fb.subackFor(body))
	}
	_ = c.SetReadDeadline(time.Now().Add(testTimeout))
	if _, err := c.Write(fb.bad); err != nil {
		return
	}
	_, _ = io.Copy(io.Discard, c)
}

// subackFor answers a SUBSCRIBE body with one reason code per filter.
func (fb *fakeBroker) subackFor(body []byte) []byte {
	if len(body) < 3 {
		return nil
	}
	plen, n, ok := readVarint(body[2:])
	if !ok {
		return nil
	}
	filters := 0
	for i := 2 + n + plen; i < len(body); filters++ {
		end, ok := skipString(body, i)
		if !ok {
			break
		}
		i = end + 1 // the options byte
	}
	reasons := make([]byte, filters)
	for i := range reasons {
		reasons[i] = fb.suback
	}
	return pkt(0x90, body[:2], []byte{0}, reasons)
}

// readRawPacket reads one packet's first byte and body.
func readRawPacket(r io.Reader) (byte, []byte, error) {
	var h [1]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return 0, nil, err
	}
	n, shift := 0, 0
	for {
		var b [1]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return 0, nil, err
		}
		n |= int(b[0]&0x7f) << shift
		if b[0]&0x80 == 0 {
			break
		}
		shift += 7
	}
	body := make([]byte, n)
	_, err := io.ReadFull(r, body)
	return h[0], body, err
}

// TestGuardEndsSessionWithoutReconnecting proves that a malformed or
// oversized packet ends the session with the typed violation, that the
// receiver's Run returns it, that sends fail with it, and that the session
// does not reconnect although its backoff would allow a storm.
func TestGuardEndsSessionWithoutReconnecting(t *testing.T) {
	const secret = "hunter2-secret"
	tests := []struct {
		name string
		bad  []byte
		kind ViolationKind
	}{
		{"oversized publish", publish1("t/"+secret, props(), strings.Repeat(secret, 100)), ViolationOversized},
		{"oversized remaining length", []byte{0x30, 0xff, 0xff, 0xff, 0x7f}, ViolationOversized},
		{"malformed remaining length", []byte{0x30, 0xff, 0xff, 0xff, 0xff, 0x01}, ViolationMalformed},
		{"publish with QoS 3", pkt(0x36, str("t/"+secret), []byte{0, 1}, props(), []byte(secret)), ViolationMalformed},
		{"publish with a truncated property", publish1("t/"+secret, []byte{0x05, propUserProperty, 0, 9, 'a', 'b'}, ""), ViolationMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testContext(t)
			fb := startFakeBroker(t, tt.bad)
			s := newSession(t, SessionConfig{URLs: []string{fb.url()}, MaxPacketSize: 512,
				Reconnect: ReconnectConfig{Initial: time.Millisecond, Max: 5 * time.Millisecond, Multiplier: 1, Jitter: 0.01}})
			r, err := NewReceiver(s, ReceiverConfig{Subscriptions: []SubscriptionConfig{{Topic: "t/#"}}})
			if err != nil {
				t.Fatal(err)
			}
			snd, err := NewSender(s, SenderConfig{DefaultTopic: "out"})
			if err != nil {
				t.Fatal(err)
			}
			runErr := make(chan error, 1)
			go func() {
				runErr <- r.Run(ctx, func(context.Context, ports.Delivery) error { return nil })
			}()
			var err1 error
			select {
			case err1 = <-runErr:
			case <-ctx.Done():
				t.Fatal("Run did not return after the violation")
			}
			v, ok := errors.AsType[*IngressViolation](err1)
			if !ok || v.Kind != tt.kind {
				t.Fatalf("Run = %v, want a %s violation", err1, tt.kind)
			}
			if fault.ClassOf(err1) != fault.ClassPermanent || strings.Contains(err1.Error(), secret) {
				t.Errorf("violation %q: class %v; want permanent and free of packet content", err1, fault.ClassOf(err1))
			}
			if s.Terminal() != v {
				t.Errorf("Terminal = %v, want the violation Run returned", s.Terminal())
			}
			if h := s.Health(ctx); h.Status != ports.SessionDown || h.Connected {
				t.Errorf("health %+v, want down", h)
			}
			sendErr := snd.Send(ctx, ports.OutboundMessage{Envelope: numberedEnvelope(1)})
			if !errors.Is(sendErr, v) {
				t.Errorf("Send after the violation = %v, want it to carry the violation", sendErr)
			}
			// A storm would reconnect within milliseconds; watch for a while.
			quiet := time.NewTimer(300 * time.Millisecond)
			defer quiet.Stop()
			<-quiet.C
			if n := fb.conns.Load(); n != 1 {
				t.Errorf("the broker saw %d connections; want 1 (no reconnection after a violation)", n)
			}
			sawError := false
			for len(s.Events()) > 0 {
				if e := <-s.Events(); e.Kind == ports.EventError && errors.Is(e.Err, v) {
					sawError = true
				}
			}
			if !sawError {
				t.Error("no error event carrying the violation")
			}
		})
	}
}
