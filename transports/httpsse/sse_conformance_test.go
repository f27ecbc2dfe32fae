package httpsse

import (
	"context"
	"errors"
	"net/url"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/conformance"
)

// sseTarget turns open SSE streams into the per-address arrival stream
// the conformance suite reads.
func sseTarget(ctx context.Context, t *testing.T, s *SSESender, channels ...string) conformance.Target {
	t.Helper()
	streams := map[string]*sseClient{}
	for _, ch := range channels {
		streams[ch] = openSSE(ctx, t, "http://"+s.Addr()+s.Config().Path+"/"+url.PathEscape(ch), nil)
	}
	return conformance.Target{
		Addresses: channels[:2],
		Receive: func(ctx context.Context, address string) (conformance.Received, error) {
			st := streams[address]
			if st == nil {
				<-ctx.Done()
				return conformance.Received{}, ctx.Err()
			}
			select {
			case ev, ok := <-st.events:
				if !ok {
					return conformance.Received{}, errors.New("stream ended")
				}
				env, err := ParseBody([]byte(ev.Data))
				if err != nil {
					return conformance.Received{}, err
				}
				return conformance.Received{Address: address, Subject: env.Subject, Payload: env.Payload(), Headers: env.Headers}, nil
			case <-ctx.Done():
				return conformance.Received{}, ctx.Err()
			}
		},
		Timing: conformance.Timing{Quiet: 100 * time.Millisecond},
	}
}

func TestSSESenderConformance(t *testing.T) {
	conformance.RunSender(t, func(t *testing.T) conformance.SenderHarness {
		ctx := testContext(t)
		s, err := NewSSESender(SSEConfig{Listen: "127.0.0.1:0", DefaultChannel: "fallback"})
		if err != nil {
			t.Fatal(err)
		}
		tg := sseTarget(ctx, t, s, "chan-a", "chan-b", "fallback")
		tg.Close = s.Close
		return conformance.SenderHarness{Sender: s, Target: tg, EmptyAddressOK: true, DefaultAddress: "fallback"}
	})
}

func TestSSESenderConformanceWithoutDefault(t *testing.T) {
	conformance.RunSender(t, func(t *testing.T) conformance.SenderHarness {
		ctx := testContext(t)
		s, err := NewSSESender(SSEConfig{Listen: "127.0.0.1:0", NoSubscriber: NoSubscriberRefuse})
		if err != nil {
			t.Fatal(err)
		}
		tg := sseTarget(ctx, t, s, "orders/eu", "orders/us")
		tg.Close = s.Close
		return conformance.SenderHarness{Sender: s, Target: tg}
	})
}
