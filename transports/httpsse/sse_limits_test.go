package httpsse

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/streamlog"
)

// recordingLog counts the calls a sender makes to its log, by operation
// and channel name ("trim junk-3").
type recordingLog struct {
	ports.StreamLog
	mu    sync.Mutex
	calls map[string]int
}

func newRecordingLog() *recordingLog {
	return &recordingLog{StreamLog: streamlog.NewMemory(nil), calls: map[string]int{}}
}

func (l *recordingLog) note(op, key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls[op+" "+key[strings.LastIndex(key, logKeySep)+1:]]++
}

// count returns how many calls of op named a channel for which match holds.
func (l *recordingLog) count(op string, match func(string) bool) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for k, v := range l.calls {
		if o, name, _ := strings.Cut(k, " "); (op == "" || o == op) && match(name) {
			n += v
		}
	}
	return n
}

func (l *recordingLog) AppendEvents(ctx context.Context, key string, events [][]byte) (uint64, error) {
	l.note("append", key)
	return l.StreamLog.AppendEvents(ctx, key, events)
}

func (l *recordingLog) ReadEvents(ctx context.Context, key string, after uint64, limit int) ([]ports.StreamEvent, error) {
	l.note("read", key)
	return l.StreamLog.ReadEvents(ctx, key, after, limit)
}

func (l *recordingLog) EventSpan(ctx context.Context, key string) (ports.StreamSpan, error) {
	l.note("span", key)
	return l.StreamLog.EventSpan(ctx, key)
}

func (l *recordingLog) TrimEvents(ctx context.Context, key string, b ports.StreamBounds) (ports.StreamTrim, error) {
	l.note("trim", key)
	return l.StreamLog.TrimEvents(ctx, key, b)
}

func isJunk(name string) bool { return strings.HasPrefix(name, "junk") }

// TestSSEJunkSubscriptionsDoNotEvictARealChannel subscribes to many
// made-up channels, as the review's 10,001 junk subscriptions did, on a
// sender that holds three channels: the real channel keeps its cached
// events (a resume is served without reading the log), and no junk name
// makes the sender write to the log.
func TestSSEJunkSubscriptionsDoNotEvictARealChannel(t *testing.T) {
	ctx := testContext(t)
	log := newRecordingLog()
	s := newTestSSE(t, SSEConfig{MaxChannels: 3, ReplayBuffer: 10,
		Channels: map[string]SSEChannelConfig{"tick": {LogMaxEvents: 1}}}, WithStreamLog(log))
	base := "http://" + s.Addr() + "/events/"
	for i := range 3 {
		sendText(ctx, t, s, "real", fmt.Sprint("r", i))
	}
	for i := range 20 {
		openSSE(ctx, t, base+fmt.Sprint("junk-", i), nil).close()
	}

	c := openSSE(ctx, t, base+"real", http.Header{"Last-Event-ID": {"1"}})
	var got []string
	for range 2 {
		got = append(got, payloadOf(t, c.next(ctx, t)))
	}
	if diff := cmp.Diff([]string{"r1", "r2"}, got); diff != "" {
		t.Errorf("resume (-want +got):\n%s", diff)
	}
	if n := log.count("read", func(n string) bool { return n == "real" }); n != 0 {
		t.Errorf("the resume read the log %d times: the real channel's cache was evicted", n)
	}

	// Two trims of "tick" in two passes of the trimmer: every trim the
	// junk subscriptions asked for would have run by then.
	for want := 1; want <= 2; want++ {
		sendText(ctx, t, s, "tick", "a")
		sendText(ctx, t, s, "tick", "b")
		waitFor(ctx, t, "a trim of tick", func() bool {
			return log.count("trim", func(n string) bool { return n == "tick" }) >= want
		})
	}
	for _, op := range []string{"append", "trim"} {
		if n := log.count(op, isJunk); n != 0 {
			t.Errorf("junk subscriptions caused %d log %s calls", n, op)
		}
	}
}

// TestSSEHeldJunkSubscriptionsDoNotBlockSends holds streams open on
// made-up channels up to max_channels: a route's send to a real channel
// still succeeds, while one more made-up subscription is refused.
func TestSSEHeldJunkSubscriptionsDoNotBlockSends(t *testing.T) {
	ctx := testContext(t)
	s := newTestSSE(t, SSEConfig{MaxChannels: 2})
	base := "http://" + s.Addr() + "/events/"
	openSSE(ctx, t, base+"junk-1", nil)
	openSSE(ctx, t, base+"junk-2", nil)
	if err := s.Send(ctx, msgTo("real")); err != nil {
		t.Fatalf("send while junk subscriptions hold every channel: %v", err)
	}
	resp, err := http.Get(base + "junk-3")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("one more made-up channel: %d, want 503", resp.StatusCode)
	}
}

// TestSSEAllowedChannels checks that with allowed_channels only listed or
// matching channels can be subscribed to or sent to, and that a refused
// name never reaches the log.
func TestSSEAllowedChannels(t *testing.T) {
	ctx := testContext(t)
	log := newRecordingLog()
	s := newTestSSE(t, SSEConfig{AllowedChannels: []string{"orders", "tenant-*"}}, WithStreamLog(log))
	base := "http://" + s.Addr() + "/events/"
	tests := []struct {
		channel string
		want    int
	}{
		{"orders", 200}, {"tenant-a", 200}, {"junk", 404}, {"tenant-a/x", 404}, {"Orders", 404},
	}
	for _, tt := range tests {
		t.Run(tt.channel, func(t *testing.T) {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+tt.channel, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.want)
			}
		})
	}
	err := s.Send(ctx, msgTo("junk"))
	if fault.CodeOf(err) != fault.CodeInvalidConfig || fault.IsRecoverable(err) {
		t.Errorf("send to an unlisted channel: %v, want a permanent INVALID_CONFIG", err)
	}
	sendText(ctx, t, s, "tenant-b", "ok")
	if n := log.count("", func(n string) bool { return n == "junk" || n == "tenant-a/x" || n == "Orders" }); n != 0 {
		t.Errorf("refused channels caused %d log calls", n)
	}
}

// TestSSESubscriptionLimits holds streams open up to each limit: one more
// is refused (429 per address, 503 per channel and overall), and a slot
// freed by a closed stream is usable again.
func TestSSESubscriptionLimits(t *testing.T) {
	tests := []struct {
		name     string
		cfg      SSEConfig
		held     []string // channels of the streams held open
		next     string
		want     int
		elsewere string // a channel that still takes a stream, if any
	}{
		{"per address", SSEConfig{MaxClientsPerAddress: 2}, []string{"a", "b"}, "c", http.StatusTooManyRequests, ""},
		{"per channel", SSEConfig{MaxSubscribersPerChannel: 2}, []string{"a", "a"}, "a", http.StatusServiceUnavailable, "b"},
		{"overall", SSEConfig{MaxClients: 2}, []string{"a", "b"}, "c", http.StatusServiceUnavailable, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testContext(t)
			s := newTestSSE(t, tt.cfg)
			base := "http://" + s.Addr() + "/events/"
			var held []*sseClient
			for _, ch := range tt.held {
				held = append(held, openSSE(ctx, t, base+ch, nil))
			}
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+tt.next, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			if resp.StatusCode != tt.want || resp.Header.Get("Retry-After") != "1" {
				t.Errorf("one more stream: %d (Retry-After %q), want %d", resp.StatusCode, resp.Header.Get("Retry-After"), tt.want)
			}
			if tt.elsewere != "" {
				openSSE(ctx, t, base+tt.elsewere, nil).close()
			}
			held[0].close()
			waitFor(ctx, t, "the slot to be given back", func() bool {
				s.hub.mu.Lock()
				defer s.hub.mu.Unlock()
				return s.hub.clients == len(held)-1
			})
			openSSE(ctx, t, base+tt.next, nil).close()
		})
	}
}
