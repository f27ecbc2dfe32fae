package httpsse

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/conformance"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// hookServer is a webhook endpoint that records what arrives, per path
// segment after /hooks/. Path /hooks/forbidden answers 403.
type hookServer struct {
	*httptest.Server
	raw bool

	mu    sync.Mutex
	boxes map[string]chan conformance.Received
	reqs  []*http.Request // headers of every request, bodies consumed
}

func newHookServer(t *testing.T, raw bool) *hookServer {
	t.Helper()
	hs := &hookServer{raw: raw, boxes: map[string]chan conformance.Received{}}
	hs.Server = httptest.NewServer(http.HandlerFunc(hs.serve))
	t.Cleanup(hs.Close)
	return hs
}

func (hs *hookServer) box(addr string) chan conformance.Received {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	b := hs.boxes[addr]
	if b == nil {
		b = make(chan conformance.Received, 1024)
		hs.boxes[addr] = b
	}
	return b
}

func (hs *hookServer) serve(w http.ResponseWriter, r *http.Request) {
	addr, ok := strings.CutPrefix(r.URL.Path, "/hooks/")
	if !ok || addr == "forbidden" {
		w.WriteHeader(http.StatusForbidden)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	hs.mu.Lock()
	hs.reqs = append(hs.reqs, r)
	hs.mu.Unlock()
	var envs []*messaging.Envelope
	switch {
	case hs.raw:
		env := messaging.NewEnvelope(r.Header.Get(SubjectHeader), body)
		for k, v := range r.Header {
			env.Headers[strings.ToLower(k)] = v[0]
		}
		envs = append(envs, env)
	case len(body) > 0 && body[0] == '[':
		var items []json.RawMessage
		if err := json.Unmarshal(body, &items); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		for _, it := range items {
			env, err := ParseBody(it)
			if err != nil {
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			envs = append(envs, env)
		}
	default:
		env, err := ParseBody(body)
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		envs = append(envs, env)
	}
	for _, env := range envs {
		hs.box(addr) <- conformance.Received{Address: addr, Subject: env.Subject, Payload: env.Payload(), Headers: env.Headers}
	}
	w.WriteHeader(http.StatusNoContent)
}

func (hs *hookServer) target() conformance.Target {
	return conformance.Target{
		Addresses: []string{"a", "b"},
		Receive: func(ctx context.Context, address string) (conformance.Received, error) {
			select {
			case r := <-hs.box(address):
				return r, nil
			case <-ctx.Done():
				return conformance.Received{}, ctx.Err()
			}
		},
		Timing: conformance.Timing{Quiet: 100 * time.Millisecond},
	}
}

func newTestWebhook(t *testing.T, cfg WebhookConfig) *WebhookSender {
	t.Helper()
	s, err := NewWebhookSender(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	return s
}

func TestWebhookSenderConformance(t *testing.T) {
	for _, mode := range []BodyMode{BodyEnvelope, BodyRaw} {
		t.Run(string(mode), func(t *testing.T) {
			conformance.RunSender(t, func(t *testing.T) conformance.SenderHarness {
				hs := newHookServer(t, mode == BodyRaw)
				s := newTestWebhook(t, WebhookConfig{URL: hs.URL + "/hooks/default", Body: mode})
				return conformance.SenderHarness{Sender: s, Target: hs.target(), EmptyAddressOK: true, DefaultAddress: "default"}
			})
		})
	}
}

func TestWebhookBatchSenderConformance(t *testing.T) {
	for _, batch := range []bool{true, false} {
		name := map[bool]string{true: "array", false: "one_by_one"}[batch]
		t.Run(name, func(t *testing.T) {
			conformance.RunBatchSender(t, func(t *testing.T) conformance.BatchSenderHarness {
				hs := newHookServer(t, false)
				s := newTestWebhook(t, WebhookConfig{URL: hs.URL + "/hooks/", Batch: batch, MaxBatchSize: 2})
				return conformance.BatchSenderHarness{
					Sender: s, Target: hs.target(),
					Spoil: func(m ports.OutboundMessage) ports.OutboundMessage {
						m.Address = "forbidden"
						return m
					},
				}
			})
		})
	}
}
