package httpsse

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// startReceiver runs a receiver on a loopback port with emit until the
// test ends, and returns it with its base URL.
func startReceiver(t *testing.T, cfg ReceiverConfig, emit ports.EmitFunc) (*Receiver, string) {
	t.Helper()
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:0"
	}
	r, err := NewReceiver(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r.grace = 50 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx, emit) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(testTimeout):
			t.Error("Run did not return")
		}
	})
	waitFor(testContext(t), t, "the receiver to listen", func() bool { return r.Addr() != "" })
	return r, "http://" + r.Addr()
}

// settling returns an emit that settles every delivery at once with st
// (Ack for an acked outcome, Retry after delay for a retried one, nothing
// for unsettled) and reports the envelopes it saw on got.
func settling(st ports.Settlement, delay time.Duration, got chan<- *messaging.Envelope) ports.EmitFunc {
	return func(ctx context.Context, d ports.Delivery) error {
		if got != nil {
			got <- d.Envelope()
		}
		switch st.Outcome {
		case ports.SettledAcked:
			_ = d.Ack(ctx)
		case ports.SettledRetried:
			_ = d.Retry(ctx, delay, st.Err)
		}
		d.(ports.SettleObserver).Settled(st)
		return nil
	}
}

// answer is what a test checks of a response.
type answer struct {
	Status     int
	RetryAfter string
	Body       Response
}

// do sends a request and decodes the answer.
func do(t *testing.T, req *http.Request) answer {
	t.Helper()
	a, _ := doHeader(t, req)
	return a
}

// doHeader is do that also returns the response header.
func doHeader(t *testing.T, req *http.Request) (answer, http.Header) {
	t.Helper()
	a, h, err := tryDo(req)
	if err != nil {
		t.Fatal(err)
	}
	return a, h
}

// tryDo sends a request and decodes the answer; it is safe to call from
// any goroutine.
func tryDo(req *http.Request) (answer, http.Header, error) {
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return answer{}, nil, fmt.Errorf("%s %s: %w", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return answer{}, nil, err
	}
	a := answer{Status: resp.StatusCode, RetryAfter: resp.Header.Get("Retry-After")}
	if len(body) > 0 && strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(body, &a.Body); err != nil {
			return answer{}, nil, fmt.Errorf("answer %q: %w", body, err)
		}
	}
	return a, resp.Header, nil
}

// goDo sends req from a new goroutine; the answer (or the error, as an
// answer with status 0 and the error text in Body.Status) arrives on the
// returned channel.
func goDo(req *http.Request) <-chan answer {
	ch := make(chan answer, 1)
	go func() {
		a, _, err := tryDo(req)
		if err != nil {
			a.Body.Status = err.Error()
		}
		ch <- a
	}()
	return ch
}

// post builds a POST with a JSON body.
func post(t *testing.T, url, body string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	return req
}
