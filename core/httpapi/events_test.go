package httpapi

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// stream is an open event stream read line by line.
type stream struct {
	resp  *http.Response
	lines chan string
}

// item is one event ("routes", "dlq", "health") with its data, or a
// comment (name ":").
type item struct {
	name, data string
}

func openStream(t *testing.T, url, key string) *stream {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"/api/v1/admin/events", nil)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	st := &stream{resp: resp, lines: make(chan string, 64)}
	go func() {
		defer close(st.lines)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			st.lines <- sc.Text()
		}
	}()
	return st
}

// next returns the next event or comment; ok is false at the end of the
// stream.
func (s *stream) next(t *testing.T) (item, bool) {
	t.Helper()
	var it item
	deadline := time.After(10 * time.Second)
	for {
		select {
		case l, ok := <-s.lines:
			if !ok {
				return it, false
			}
			switch {
			case strings.HasPrefix(l, ":"):
				return item{name: ":"}, true
			case strings.HasPrefix(l, "event: "):
				it.name = strings.TrimPrefix(l, "event: ")
			case strings.HasPrefix(l, "data: "):
				it.data = strings.TrimPrefix(l, "data: ")
			case l == "" && it.name != "":
				return it, true
			}
		case <-deadline:
			t.Fatal("no event within 10s")
		}
	}
}

func liveServer(t *testing.T, b Backend, maxStreams int) (*Server, string) {
	t.Helper()
	s, err := New(Config{AdminAddr: "127.0.0.1:0", AdminAPIKey: adminKey, MonitorAPIKey: monitorKey,
		MaxEventStreams: maxStreams, Logger: slog.New(slog.DiscardHandler)}, b)
	if err != nil {
		t.Fatal(err)
	}
	s.eventTick, s.heartbeat, s.storeEvery = 5*time.Millisecond, 100*time.Millisecond, 5*time.Millisecond
	admin, _ := s.Handlers()
	srv := httptest.NewServer(admin)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	return s, srv.URL
}

func TestEventsNeedTheAdminKey(t *testing.T) {
	_, url := liveServer(t, &fakeBackend{}, 0)
	for _, key := range []string{"", monitorKey, "wrong-key-0123456789"} {
		st := openStream(t, url, key)
		if st.resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("key %q: status %d, want 401", key, st.resp.StatusCode)
		}
	}
}

func TestEventsSendOnChangeOnly(t *testing.T) {
	dlq := seedDLQ(t, 1)
	metrics := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "# TYPE gobridge_outbox_depth gauge\ngobridge_outbox_depth{route=\"a\",binding=\"out\"} 3\n"+
			"# TYPE gobridge_route_in_flight gauge\ngobridge_route_in_flight{route=\"a\"} 2\n")
	})
	b := &fakeBackend{dlq: dlq, metrics: metrics,
		routes:    []RouteStatus{{ID: "a", State: RouteRunning, Role: RoleStandalone}},
		readiness: Readiness{Level: LevelSubscribed, Role: RoleStandalone, Detail: "route a not consuming"}}
	_, url := liveServer(t, b, 0)
	st := openStream(t, url, adminKey)
	if ct := st.resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	got := map[string]string{}
	for range 3 {
		it, ok := st.next(t)
		if !ok || it.name == ":" {
			t.Fatalf("want the three opening events, got %+v (open %v)", it, ok)
		}
		got[it.name] = it.data
	}
	var routes liveRoutes
	if err := json.Unmarshal([]byte(got[eventRoutes]), &routes); err != nil {
		t.Fatal(err)
	}
	three, one := 3, 1
	want := liveRoutes{Routes: []liveRoute{{ID: "a", State: RouteRunning, Role: RoleStandalone, InFlight: 2, OutboxDepth: &three, DLQDepth: &one}}}
	if diff := cmp.Diff(want, routes); diff != "" {
		t.Errorf("routes event (-want +got):\n%s", diff)
	}
	if !strings.Contains(got[eventHealth], `"detail":"route a not consuming"`) || !strings.Contains(got[eventHealth], `"ready":false`) {
		t.Errorf("health event %s lacks the readiness reason", got[eventHealth])
	}
	// Nothing changes over many ticks: the next thing sent is the
	// heartbeat, not a repeated snapshot.
	if it, _ := st.next(t); it.name != ":" {
		t.Fatalf("after the opening events with nothing changed, got %+v, want the heartbeat", it)
	}
	// A new DLQ entry is pushed as a dlq event (and the routes event, whose
	// DLQ depth changed).
	if err := dlq.Write(t.Context(), ports.DLQEntry{RouteID: "a", Category: ports.DLQPermanent}); err != nil {
		t.Fatal(err)
	}
	for {
		it, ok := st.next(t)
		if !ok {
			t.Fatal("stream ended")
		}
		if it.name == eventDLQ {
			if diff := cmp.Diff(`{"configured":true,"depth":2,"by_route":{"a":2}}`, it.data); diff != "" {
				t.Errorf("dlq event (-want +got):\n%s", diff)
			}
			break
		}
	}
}

func TestEventsLimitAndRelease(t *testing.T) {
	_, url := liveServer(t, &fakeBackend{}, 1)
	ctx, cancel := context.WithCancel(t.Context())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"/api/v1/admin/events", nil)
	req.Header.Set("Authorization", "Bearer "+adminKey)
	first, err := http.DefaultClient.Do(req)
	if err != nil || first.StatusCode != http.StatusOK {
		t.Fatalf("first stream: %v %v", first, err)
	}
	if second := openStream(t, url, adminKey); second.resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("second stream over a limit of 1: status %d, want 429", second.resp.StatusCode)
	}
	// The client going away frees its slot.
	cancel()
	_ = first.Body.Close()
	eventually(t, "a stream after the first client left", func() bool {
		st := openStream(t, url, adminKey)
		defer st.resp.Body.Close()
		return st.resp.StatusCode == http.StatusOK
	})
}

func TestShutdownEndsEventStreams(t *testing.T) {
	s, err := New(Config{AdminAddr: "127.0.0.1:0", AdminAPIKey: adminKey, Logger: slog.New(slog.DiscardHandler)}, &fakeBackend{})
	if err != nil {
		t.Fatal(err)
	}
	s.eventTick = time.Hour
	if err := s.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	st := openStream(t, "http://"+s.AdminAddr(), adminKey)
	for range 3 {
		if _, ok := st.next(t); !ok {
			t.Fatal("stream ended before its opening events")
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown with an open stream: %v (it should end the stream, not wait it out)", err)
	}
	if it, ok := st.next(t); ok {
		t.Errorf("stream still open after Shutdown: %+v", it)
	}
}

// TestEventsOutliveTheReadTimeout keeps a stream open well past the
// server's read timeout, which would otherwise cancel the request.
func TestEventsOutliveTheReadTimeout(t *testing.T) {
	s := newTestServer(t, &fakeBackend{})
	s.eventTick, s.heartbeat = time.Hour, 10*time.Millisecond
	admin, _ := s.Handlers()
	srv := httptest.NewUnstartedServer(admin)
	srv.Config.ReadTimeout = 50 * time.Millisecond
	srv.Start()
	t.Cleanup(srv.Close)
	st := openStream(t, srv.URL, adminKey)
	deadline := time.Now().Add(500 * time.Millisecond)
	beats := 0
	for time.Now().Before(deadline) {
		it, ok := st.next(t)
		if !ok {
			t.Fatalf("stream ended after %d heartbeats, within the read timeout's reach", beats)
		}
		if it.name == ":" {
			beats++
		}
	}
	if beats < 5 {
		t.Errorf("%d heartbeats in 500ms, want several", beats)
	}
}

func TestRouteRates(t *testing.T) {
	received := 10.0
	b := &fakeBackend{routes: []RouteStatus{{ID: "a", State: RouteRunning}},
		metrics: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			_, _ = io.WriteString(w, "gobridge_route_messages_received_total{route=\"a\"} "+strings.TrimSpace(jsonNum(received))+"\n"+
				"gobridge_route_messages_sent_total{route=\"a\",binding=\"x\"} 4\ngobridge_route_messages_sent_total{route=\"a\",binding=\"y\"} 4\n")
		})}
	s := newTestServer(t, b)
	smp := &sampler{}
	first := routesSnapshot(smp, time.Now(), b.routes, s.routeCounters(t.Context()), liveDLQ{})
	if r := first.Routes[0]; r.ReceivedPerSec != 0 || r.OutboxDepth != nil || r.DLQDepth != nil {
		t.Errorf("first snapshot %+v: want no rate yet and no outbox or DLQ depth", r)
	}
	smp.at = smp.at.Add(-2 * time.Second) // as if the last tick was 2s ago
	received = 30
	r := routesSnapshot(smp, time.Now(), b.routes, s.routeCounters(t.Context()), liveDLQ{}).Routes[0]
	if r.ReceivedPerSec < 5 || r.ReceivedPerSec > 10 || r.SentPerSec != 0 {
		t.Errorf("after 20 more received in about 2s: received %v/s (want about 10), sent %v/s (want 0)", r.ReceivedPerSec, r.SentPerSec)
	}
}

func jsonNum(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}

// eventually polls cond until it holds or 10 seconds pass.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
