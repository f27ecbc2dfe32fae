package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// freeAddr returns a loopback address whose port was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// retry calls f until it succeeds or ctx ends, for listeners that are
// still starting.
func retry[T any](ctx context.Context, t *testing.T, what string, f func() (T, error)) T {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		v, err := f()
		if err == nil {
			return v
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: %v (last error: %v)", what, ctx.Err(), err)
		case <-tick.C:
		}
	}
}

// TestEmbeddedBridgeDeliversToTheSSEStream runs the example's bridge in
// this process on free ports, subscribes to the orders channel, POSTs a
// message to the ingress and reads it from the stream; then it stops the
// bridge the way Ctrl-C does and checks that Run returns cleanly.
func TestEmbeddedBridgeDeliversToTheSSEStream(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	ingress, sse := freeAddr(t), freeAddr(t)
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	ran := make(chan error, 1)
	go func() { ran <- run(runCtx, slog.New(slog.NewTextHandler(testWriter{t}, nil)), ingress, sse) }()
	running := func() { // fails the test at once if Run returned
		select {
		case err := <-ran:
			t.Fatalf("Run returned early: %v", err)
		default:
		}
	}

	stream := retry(ctx, t, "subscribe", func() (*http.Response, error) {
		running()
		req, _ := http.NewRequestWithContext(runCtx, http.MethodGet, "http://"+sse+"/events/orders", nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil && resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			return nil, errors.New(resp.Status)
		}
		return resp, err
	})
	defer stream.Body.Close()
	events := make(chan string, 1)
	go func() { // ends when the stream does: at the bridge's stop at the latest
		sc := bufio.NewScanner(stream.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				select {
				case events <- data:
				case <-runCtx.Done():
					return
				}
			}
		}
		close(events)
	}()

	status := retry(ctx, t, "publish", func() (int, error) {
		running()
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+ingress+"/publish",
			strings.NewReader(`{"subject":"orders.created","payload":{"order":42}}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		return resp.StatusCode, nil
	})
	if status != http.StatusOK {
		t.Fatalf("publish: status %d, want 200", status)
	}

	var got struct {
		Subject string          `json:"subject"`
		Payload json.RawMessage `json:"payload"`
	}
	select {
	case data, ok := <-events:
		if !ok {
			t.Fatal("the stream ended before the event")
		}
		if err := json.Unmarshal([]byte(data), &got); err != nil {
			t.Fatalf("event data %q: %v", data, err)
		}
	case <-ctx.Done():
		t.Fatal("no event on the stream")
	}
	want := struct{ Subject, Payload string }{"orders.created", `{"order":42}`}
	if diff := cmp.Diff(want, struct{ Subject, Payload string }{got.Subject, string(got.Payload)}); diff != "" {
		t.Errorf("event (-want +got):\n%s", diff)
	}

	stop()
	select {
	case err := <-ran:
		if err != nil {
			t.Errorf("Run after a stop: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("the bridge did not stop")
	}
}

// testWriter sends the bridge's log lines to the test's log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}
