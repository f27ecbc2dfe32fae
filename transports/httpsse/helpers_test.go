package httpsse

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// testTimeout bounds every wait in this package's tests.
const testTimeout = 20 * time.Second

// testContext ends with the test or after testTimeout.
func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// waitFor polls cond until it holds or ctx ends.
func waitFor(ctx context.Context, t *testing.T, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s", what)
		case <-tick.C:
		}
	}
}

// sseEvent is one event read from a stream.
type sseEvent struct {
	ID    string
	Event string
	Data  string
}

// sseClient reads one SSE stream in a goroutine it owns; close stops it.
type sseClient struct {
	resp     *http.Response
	events   chan sseEvent
	comments chan string
	ctx      context.Context
	cancel   context.CancelFunc
	done     chan struct{}
}

// openSSE subscribes to url and returns once the server has registered
// the subscription (it writes its opening comment only afterwards).
func openSSE(ctx context.Context, t *testing.T, url string, header http.Header) *sseClient {
	t.Helper()
	sctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(sctx, http.MethodGet, url, nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatalf("GET %s: %v", url, err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		cancel()
		t.Fatalf("GET %s: %d %s %s", url, resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	c := &sseClient{resp: resp, events: make(chan sseEvent, 4096), comments: make(chan string, 64),
		ctx: sctx, cancel: cancel, done: make(chan struct{})}
	opened := make(chan struct{})
	go c.read(opened)
	t.Cleanup(c.close)
	select {
	case <-opened:
	case <-c.done:
		t.Fatalf("stream %s ended before it opened", url)
	case <-ctx.Done():
		t.Fatalf("stream %s did not open: %v", url, ctx.Err())
	}
	return c
}

func (c *sseClient) read(opened chan struct{}) {
	defer close(c.done)
	defer close(c.events)
	sc := bufio.NewScanner(c.resp.Body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	var ev sseEvent
	var data []string
	var once sync.Once
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if len(data) > 0 {
				ev.Data = strings.Join(data, "\n")
				select {
				case c.events <- ev:
				case <-c.ctx.Done():
					return
				}
			}
			ev, data = sseEvent{ID: ev.ID}, nil
		case strings.HasPrefix(line, ":"):
			once.Do(func() { close(opened) })
			select {
			case c.comments <- strings.TrimSpace(line[1:]):
			default:
			}
		case strings.HasPrefix(line, "event:"):
			ev.Event = strings.TrimSpace(line[6:])
		case strings.HasPrefix(line, "id:"):
			ev.ID = strings.TrimSpace(line[3:])
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(line[5:], " "))
		}
	}
}

// next returns the next event, or fails the test.
func (c *sseClient) next(ctx context.Context, t *testing.T) sseEvent {
	t.Helper()
	select {
	case ev, ok := <-c.events:
		if !ok {
			t.Fatal("stream ended")
		}
		return ev
	case <-ctx.Done():
		t.Fatalf("no event: %v", ctx.Err())
	}
	return sseEvent{}
}

// ended waits until the server ends the stream.
func (c *sseClient) ended(ctx context.Context) bool {
	select {
	case <-c.done:
		return true
	case <-ctx.Done():
		return false
	}
}

func (c *sseClient) close() {
	c.cancel()
	_ = c.resp.Body.Close()
	<-c.done
}
