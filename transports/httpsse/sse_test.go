package httpsse

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

func newTestSSE(t *testing.T, cfg SSEConfig, opts ...Option) *SSESender {
	t.Helper()
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:0"
	}
	s, err := NewSSESender(cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		if err := s.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

func sendText(ctx context.Context, t *testing.T, s ports.Sender, channel, text string) {
	t.Helper()
	if err := s.Send(ctx, ports.OutboundMessage{Envelope: messaging.NewEnvelope("s", []byte(text)), Address: channel}); err != nil {
		t.Fatalf("Send %q: %v", text, err)
	}
}

func msgTo(channel string) ports.OutboundMessage {
	return ports.OutboundMessage{Envelope: messaging.NewEnvelope("s", []byte("x")), Address: channel}
}

// payloadOf decodes the payload of an event.
func payloadOf(t *testing.T, ev sseEvent) string {
	t.Helper()
	env, err := ParseBody([]byte(ev.Data))
	if err != nil {
		t.Fatalf("event %q: %v", ev.Data, err)
	}
	return string(env.PayloadView())
}

// replaySetup starts a sender with a 3-event replay buffer, publishes
// m0..m4 on channel room and returns it with the five event ids.
func replaySetup(ctx context.Context, t *testing.T) (*SSESender, []uint64) {
	t.Helper()
	s := newTestSSE(t, SSEConfig{ReplayBuffer: 3})
	first := openSSE(ctx, t, "http://"+s.Addr()+"/events/room", nil)
	for i := range 5 {
		sendText(ctx, t, s, "room", fmt.Sprint("m", i))
	}
	var ids []uint64
	for range 5 {
		ev := first.next(ctx, t)
		id, err := strconv.ParseUint(ev.ID, 10, 64)
		if err != nil {
			t.Fatalf("event id %q", ev.ID)
		}
		if len(ids) > 0 && id != ids[len(ids)-1]+1 {
			t.Errorf("id %d after %d", id, ids[len(ids)-1])
		}
		ids = append(ids, id)
	}
	if ids[0] != 1 {
		t.Errorf("first id %d, want 1: ids are the replay log's sequence numbers", ids[0])
	}
	return s, ids
}

func TestSSEReplayAfterLastEventID(t *testing.T) {
	id := func(ids []uint64, i int) string { return fmt.Sprint(ids[i]) }
	tests := []struct {
		name  string
		query func(ids []uint64) string
		last  func(ids []uint64) string
		want  []string
	}{
		{"header resume", nil, func(ids []uint64) string { return id(ids, 2) }, []string{"m3", "m4"}},
		{"query resume", func(ids []uint64) string { return "/events/room?last_event_id=" + id(ids, 3) }, nil, []string{"m4"}},
		{"query channel", func([]uint64) string { return "/events?channel=room" }, func(ids []uint64) string { return id(ids, 3) }, []string{"m4"}},
		{"older than the memory tail: from the log", nil, func(ids []uint64) string { return id(ids, 0) }, []string{"m1", "m2", "m3", "m4"}},
		{"from the start", nil, func([]uint64) string { return "0" }, []string{"m0", "m1", "m2", "m3", "m4"}},
		{"up to date", nil, func(ids []uint64) string { return id(ids, 4) }, nil},
		{"unknown id: notice, then the whole log", nil, func(ids []uint64) string { return fmt.Sprint(ids[4] + 100) },
			[]string{`gap {"reason":"unknown_id","last_event_id":105,"first_id":1,"newest_id":5}`, "m0", "m1", "m2", "m3", "m4"}},
		{"garbage id", nil, func([]uint64) string { return "x" }, nil},
		{"no id", nil, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testContext(t)
			s, ids := replaySetup(ctx, t)
			path := "/events/room"
			if tt.query != nil {
				path = tt.query(ids)
			}
			var h http.Header
			if tt.last != nil {
				h = http.Header{"Last-Event-ID": {tt.last(ids)}}
			}
			c := openSSE(ctx, t, "http://"+s.Addr()+path, h)
			sendText(ctx, t, s, "room", "live")
			var got []string
			for {
				ev := c.next(ctx, t)
				if ev.Event == GapEvent {
					got = append(got, "gap "+ev.Data)
					continue
				}
				p := payloadOf(t, ev)
				if p == "live" {
					break
				}
				got = append(got, p)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("replayed (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSSEHeartbeat(t *testing.T) {
	ctx := testContext(t)
	s := newTestSSE(t, SSEConfig{HeartbeatInterval: 10 * time.Millisecond, ClientRetry: 1500 * time.Millisecond})
	c := openSSE(ctx, t, "http://"+s.Addr()+"/events/x", nil)
	seen := map[string]bool{}
	for !seen["heartbeat"] {
		select {
		case cm := <-c.comments:
			seen[cm] = true
		case <-ctx.Done():
			t.Fatal("no heartbeat")
		}
	}
	if !seen["connected"] {
		t.Error("no opening comment")
	}
}

// TestSSESlowClientDisconnected fills a client's queue without reading:
// the client is dropped and counted, and the fast client gets everything.
func TestSSESlowClientDisconnected(t *testing.T) {
	ctx := testContext(t)
	meter := telemetry.NewMemory()
	s := newTestSSE(t, SSEConfig{ClientBuffer: 4}, WithMeter(meter), WithName("live"))
	// The slow client is subscribed straight on the hub: nothing drains
	// its queue, which is what a stalled connection looks like.
	ch, slow, _, err := s.hub.subscribe(ctx, "room", "192.0.2.1", startLive, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.hub.unsubscribe(ch, slow)
	fast := openSSE(ctx, t, "http://"+s.Addr()+"/events/room", nil)
	for i := range 20 {
		sendText(ctx, t, s, "room", fmt.Sprint(i))
		if got := payloadOf(t, fast.next(ctx, t)); got != fmt.Sprint(i) {
			t.Fatalf("fast client got %q, want %d", got, i)
		}
	}
	select {
	case <-slow.kicked:
	default:
		t.Fatal("the slow client was not disconnected")
	}
	if n := meter.Value("gobridge_sse_slow_clients_disconnected_total", "live"); n != 1 {
		t.Errorf("slow disconnects = %v, want 1", n)
	}
	if n := meter.Value("gobridge_sse_events_total", "live"); n != 20 {
		t.Errorf("events = %v, want 20", n)
	}
}

func TestSSENoSubscriberPolicy(t *testing.T) {
	ctx := testContext(t)
	msg := ports.OutboundMessage{Envelope: messaging.NewEnvelope("s", []byte("x")), Address: "empty"}

	accept := newTestSSE(t, SSEConfig{})
	if err := accept.Send(ctx, msg); err != nil {
		t.Errorf("accept policy: %v", err)
	}
	c := openSSE(ctx, t, "http://"+accept.Addr()+"/events/empty", http.Header{"Last-Event-ID": {"0"}})
	if got := payloadOf(t, c.next(ctx, t)); got != "x" {
		t.Errorf("replayed %q", got)
	}

	refuse := newTestSSE(t, SSEConfig{NoSubscriber: NoSubscriberRefuse})
	err := refuse.Send(ctx, msg)
	if !fault.IsRecoverable(err) || fault.CodeOf(err) != fault.CodeUnavailable {
		t.Errorf("refuse policy: %v, want transient UNAVAILABLE", err)
	}
	openSSE(ctx, t, "http://"+refuse.Addr()+"/events/empty", nil)
	if err := refuse.Send(ctx, msg); err != nil {
		t.Errorf("refuse policy with a subscriber: %v", err)
	}
}

func TestSSECloseEndsStreams(t *testing.T) {
	ctx := testContext(t)
	s := newTestSSE(t, SSEConfig{})
	c := openSSE(ctx, t, "http://"+s.Addr()+"/events/a", nil)
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if !c.ended(ctx) {
		t.Fatal("stream still open after Close")
	}
	err := s.Send(ctx, ports.OutboundMessage{Envelope: messaging.NewEnvelope("s", nil), Address: "a"})
	if fault.CodeOf(err) != fault.CodeUnavailable {
		t.Errorf("Send after Close: %v", err)
	}
}
