package httpsse

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/conformance"
	"github.com/gobridge-oss/gobridge/core/itest"
	"github.com/gobridge-oss/gobridge/core/messaging"
)

// publisher is an HTTP caller that behaves as the ingress asks: it keeps
// the message and sends it again on 503 or a connection error, until it
// gets another answer or is closed. Each Publish runs in a goroutine the
// publisher owns.
type publisher struct {
	url    string
	client *http.Client
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	delay  time.Duration

	mu      sync.Mutex
	answers []int
}

func newPublisher(url string) *publisher {
	ctx, cancel := context.WithCancel(context.Background())
	return &publisher{url: url, client: &http.Client{}, ctx: ctx, cancel: cancel, delay: 20 * time.Millisecond}
}

// publish starts sending env and returns at once.
func (p *publisher) publish(_ context.Context, env *messaging.Envelope) error {
	body, err := MarshalEnvelope(env)
	if err != nil {
		return err
	}
	p.wg.Go(func() { p.deliver(body) })
	return nil
}

func (p *publisher) deliver(body []byte) {
	for {
		status, err := p.post(body)
		if err == nil && status != http.StatusServiceUnavailable {
			p.mu.Lock()
			p.answers = append(p.answers, status)
			p.mu.Unlock()
			return
		}
		t := time.NewTimer(p.delay)
		select {
		case <-p.ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

func (p *publisher) post(body []byte) (int, error) {
	req, err := http.NewRequestWithContext(p.ctx, http.MethodPost, p.url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := p.client.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode, nil
}

func (p *publisher) close(context.Context) error {
	p.cancel()
	p.wg.Wait()
	p.client.CloseIdleConnections()
	return nil
}

func TestReceiverConformance(t *testing.T) {
	conformance.RunReceiver(t, func(t *testing.T) conformance.ReceiverHarness {
		addr := itest.FreeAddr(t)
		r, err := NewReceiver(ReceiverConfig{Listen: addr, ShutdownTimeout: 200 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		r.grace = 20 * time.Millisecond // no runtime calls Settled here
		p := newPublisher("http://" + addr + DefaultIngressPath)
		return conformance.ReceiverHarness{
			Receiver: r,
			Publish:  p.publish,
			Close:    p.close,
			Timing:   conformance.Timing{Quiet: 100 * time.Millisecond},
		}
	})
}
