package httpsse

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/itest"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/streamlog"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// collect reads events from c until one carries the payload stop, and
// returns the others: payloads, and gap notices as "gap <data>".
func collect(ctx context.Context, t *testing.T, c *sseClient, stop string) []string {
	t.Helper()
	var got []string
	for {
		ev := c.next(ctx, t)
		if ev.Event == GapEvent {
			got = append(got, "gap "+ev.Data)
			continue
		}
		p := payloadOf(t, ev)
		if p == stop {
			return got
		}
		got = append(got, ev.ID+"="+p)
	}
}

// TestSSEResumeAfterRestartFromTheLog publishes with nobody subscribed,
// closes the sender, starts another on the same log, and subscribes: a
// client with Last-Event-ID gets what followed it, a client without one
// gets the whole log on an earliest channel and live events only on a
// live one.
func TestSSEResumeAfterRestartFromTheLog(t *testing.T) {
	ctx := testContext(t)
	log := streamlog.NewMemory(nil)
	addr := itest.FreeAddr(t)
	cfg := SSEConfig{Listen: addr, Channels: map[string]SSEChannelConfig{"orders": {ReplayFrom: ReplayFromEarliest}}}
	first, err := NewSSESender(cfg, WithStreamLog(log))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		sendText(ctx, t, first, "orders", fmt.Sprint("m", i))
		sendText(ctx, t, first, "news", fmt.Sprint("n", i))
	}
	if err := first.Close(ctx); err != nil {
		t.Fatal(err)
	}
	second := newTestSSE(t, cfg, WithStreamLog(log))
	tests := []struct {
		name, path, last string
		want             []string
	}{
		{"earliest channel, no id", "/events/orders", "", []string{"1=m0", "2=m1", "3=m2"}},
		{"earliest channel, resuming", "/events/orders", "2", []string{"3=m2"}},
		{"live channel, no id", "/events/news", "", nil},
		{"live channel, resuming", "/events/news", "1", []string{"2=n1", "3=n2"}},
	}
	clients := make([]*sseClient, len(tests))
	for i, tt := range tests {
		var h http.Header
		if tt.last != "" {
			h = http.Header{"Last-Event-ID": {tt.last}}
		}
		clients[i] = openSSE(ctx, t, "http://"+second.Addr()+tt.path, h)
	}
	sendText(ctx, t, second, "orders", "live")
	sendText(ctx, t, second, "news", "live")
	for i, tt := range tests {
		if diff := cmp.Diff(tt.want, collect(ctx, t, clients[i], "live")); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestSSEGapEventWhenLastEventIDWasTrimmed resumes from an id whose
// successors the log trimmed: the client first gets the gap notice, then
// what is kept, then live events.
func TestSSEGapEventWhenLastEventIDWasTrimmed(t *testing.T) {
	ctx := testContext(t)
	meter := telemetry.NewMemory()
	s := newTestSSE(t, SSEConfig{ReplayBuffer: 3, LogMaxEvents: 2}, WithMeter(meter), WithName("g"))
	for i := range 5 {
		sendText(ctx, t, s, "room", fmt.Sprint("m", i))
	}
	s.trim(ctx, "room")
	tests := []struct {
		name, last string
		want       []string
	}{
		{"trimmed", "1", []string{`gap {"reason":"trimmed","last_event_id":1,"first_id":4,"missed":2,"newest_id":5}`, "4=m3", "5=m4"}},
		{"just kept", "3", []string{"4=m3", "5=m4"}},
		{"unknown", "9", []string{`gap {"reason":"unknown_id","last_event_id":9,"first_id":4,"newest_id":5}`, "4=m3", "5=m4"}},
	}
	clients := make([]*sseClient, len(tests))
	for i, tt := range tests {
		clients[i] = openSSE(ctx, t, "http://"+s.Addr()+"/events/room", http.Header{"Last-Event-ID": {tt.last}})
	}
	sendText(ctx, t, s, "room", "live")
	for i, tt := range tests {
		if diff := cmp.Diff(tt.want, collect(ctx, t, clients[i], "live")); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	for _, m := range []struct {
		name string
		want float64
	}{
		{"gobridge_sse_gap_events_total", 2}, {"gobridge_sse_replay_gaps_total", 1},
		{"gobridge_sse_resume_unknown_id_total", 1}, {"gobridge_sse_log_appended_total", 6},
	} {
		if got := meter.Value(m.name, "g"); got != m.want {
			t.Errorf("%s = %v, want %v", m.name, got, m.want)
		}
	}
	// The trimmer may have trimmed the live event's predecessor too.
	if got := meter.Value("gobridge_sse_log_trimmed_total", "g"); got < 3 {
		t.Errorf("trimmed = %v, want at least 3", got)
	}
}

// TestSSETrimsTheLogToItsBounds checks that the sender's own trimmer
// keeps a channel within log_max_events, and the tail with it.
func TestSSETrimsTheLogToItsBounds(t *testing.T) {
	ctx := testContext(t)
	log := streamlog.NewMemory(nil)
	s := newTestSSE(t, SSEConfig{LogMaxEvents: 3, Channels: map[string]SSEChannelConfig{"big": {LogMaxEvents: 8}}}, WithStreamLog(log))
	for i := range 10 {
		sendText(ctx, t, s, "small", fmt.Sprint(i))
		sendText(ctx, t, s, "big", fmt.Sprint(i))
	}
	for name, want := range map[string]ports.StreamSpan{"small": {First: 8, Last: 10}, "big": {First: 3, Last: 10}} {
		waitFor(ctx, t, name+" trimmed", func() bool {
			span, err := log.EventSpan(ctx, s.hub.key(name))
			return err == nil && span == want
		})
	}
	c := openSSE(ctx, t, "http://"+s.Addr()+"/events/small", http.Header{"Last-Event-ID": {"7"}})
	sendText(ctx, t, s, "small", "live")
	if diff := cmp.Diff([]string{"8=7", "9=8", "10=9"}, collect(ctx, t, c, "live")); diff != "" {
		t.Errorf("resumed (-want +got):\n%s", diff)
	}
}

// failingLog fails every append after the first n with err.
type failingLog struct {
	ports.StreamLog
	mu  sync.Mutex
	n   int
	err error
}

func (f *failingLog) AppendEvents(ctx context.Context, channel string, events [][]byte) (uint64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == 0 {
		return 0, f.err
	}
	f.n--
	return f.StreamLog.AppendEvents(ctx, channel, events)
}

// TestSSESendFailsWhenTheLogCannotAppend: accepted means appended, so a
// log that refuses the append fails the send, transiently unless the
// store said otherwise, and the event reaches no subscriber.
func TestSSESendFailsWhenTheLogCannotAppend(t *testing.T) {
	for _, tt := range []struct {
		name      string
		err       error
		transient bool
	}{
		{"database down", errors.New("disk I/O error"), true},
		{"store unavailable", fault.ErrUnavailable.WithMessage("store closed"), true},
		{"store refuses", fault.ErrInvalidConfig.WithMessage("read-only store"), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testContext(t)
			log := &failingLog{StreamLog: streamlog.NewMemory(nil), n: 1, err: tt.err}
			s := newTestSSE(t, SSEConfig{}, WithStreamLog(log))
			c := openSSE(ctx, t, "http://"+s.Addr()+"/events/a", nil)
			sendText(ctx, t, s, "a", "ok")
			err := s.Send(ctx, ports.OutboundMessage{Envelope: messaging.NewEnvelope("s", []byte("lost")), Address: "a"})
			if err == nil || fault.IsRecoverable(err) != tt.transient {
				t.Fatalf("Send with a failing log: %v, want transient=%v", err, tt.transient)
			}
			if got := payloadOf(t, c.next(ctx, t)); got != "ok" {
				t.Errorf("first event %q", got)
			}
			select {
			case ev := <-c.events:
				t.Errorf("an event the log refused was streamed: %+v", ev)
			default:
			}
		})
	}
}

// ambiguousLog applies the first append and then reports its context as
// ended, as a store does when a caller gives up during the commit.
type ambiguousLog struct {
	ports.StreamLog
	once sync.Once
}

func (a *ambiguousLog) AppendEvents(ctx context.Context, channel string, events [][]byte) (uint64, error) {
	first, err := a.StreamLog.AppendEvents(ctx, channel, events)
	lie := false
	a.once.Do(func() { lie = true })
	if lie && err == nil {
		return 0, context.DeadlineExceeded
	}
	return first, err
}

// TestSSELiveStreamCatchesUpOnAnAppendWithUnknownOutcome: an append that
// reported failure but was applied is found in the log and streamed
// before the next event, so live subscribers never skip an id.
func TestSSELiveStreamCatchesUpOnAnAppendWithUnknownOutcome(t *testing.T) {
	ctx := testContext(t)
	s := newTestSSE(t, SSEConfig{}, WithStreamLog(&ambiguousLog{StreamLog: streamlog.NewMemory(nil)}))
	c := openSSE(ctx, t, "http://"+s.Addr()+"/events/a", nil)
	if err := s.Send(ctx, ports.OutboundMessage{Envelope: messaging.NewEnvelope("s", []byte("maybe")), Address: "a"}); err == nil {
		t.Fatal("the first send reported success")
	}
	sendText(ctx, t, s, "a", "next")
	sendText(ctx, t, s, "a", "live")
	if diff := cmp.Diff([]string{"1=maybe", "2=next"}, collect(ctx, t, c, "live")); diff != "" {
		t.Errorf("streamed (-want +got):\n%s", diff)
	}
}

// slowLog holds every append until release is closed and counts calls.
type slowLog struct {
	ports.StreamLog
	release chan struct{}
	mu      sync.Mutex
	calls   int
}

func (s *slowLog) AppendEvents(ctx context.Context, channel string, events [][]byte) (uint64, error) {
	s.mu.Lock()
	s.calls++
	s.mu.Unlock()
	select {
	case <-s.release:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	return s.StreamLog.AppendEvents(ctx, channel, events)
}

// TestSSEConcurrentSendsAreAppendedInBatchesInOrder sends from many
// goroutines while an append is held: the waiting sends share one
// append, and the stream carries ids 1..n without a hole, each with the
// data the log holds under that id.
func TestSSEConcurrentSendsAreAppendedInBatchesInOrder(t *testing.T) {
	ctx := testContext(t)
	log := &slowLog{StreamLog: streamlog.NewMemory(nil), release: make(chan struct{})}
	s := newTestSSE(t, SSEConfig{}, WithStreamLog(log))
	c := openSSE(ctx, t, "http://"+s.Addr()+"/events/a", nil)
	const n = 40
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			errs <- s.Send(ctx, ports.OutboundMessage{Envelope: messaging.NewEnvelope("s", fmt.Append(nil, i)), Address: "a"})
		})
	}
	waitFor(ctx, t, "sends queued behind the first append", func() bool {
		ch, err := s.hub.channel(ctx, "a", false)
		if err != nil {
			return false
		}
		defer ch.mu.Unlock()
		return len(ch.pending) == n-1
	})
	close(log.release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("Send: %v", err)
		}
	}
	if log.calls != 2 {
		t.Errorf("%d appends for %d sends, want 2 (the first, then one batch)", log.calls, n)
	}
	stored, err := log.ReadEvents(ctx, s.hub.key("a"), 0, n)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		ev := c.next(ctx, t)
		if ev.ID != strconv.Itoa(i+1) || ev.Data != string(stored[i].Data) {
			t.Fatalf("event %d is id %s %s, want id %d %s", i, ev.ID, ev.Data, i+1, stored[i].Data)
		}
	}
}

func TestSSEReplayLogChoice(t *testing.T) {
	if _, err := NewSSESender(SSEConfig{Listen: "-", ReplayLog: ReplayLogStore}); fault.CodeOf(err) != fault.CodeInvalidConfig {
		t.Errorf("replay_log: store without a store: %v, want INVALID_CONFIG", err)
	}
	given := streamlog.NewMemory(nil)
	for _, tt := range []struct {
		mode      ReplayLogMode
		wantGiven bool
	}{{ReplayLogAuto, true}, {ReplayLogStore, true}, {ReplayLogMemory, false}} {
		s := newTestSSE(t, SSEConfig{Listen: "-", ReplayLog: tt.mode}, WithStreamLog(given))
		if got := s.hub.log == ports.StreamLog(given); got != tt.wantGiven {
			t.Errorf("replay_log %s: uses the given log = %v, want %v", tt.mode, got, tt.wantGiven)
		}
	}
}

// TestSSESendersSharingAStoreKeepTheirOwnLogs: two senders of one bridge
// with a channel of the same name number and replay their events apart.
func TestSSESendersSharingAStoreKeepTheirOwnLogs(t *testing.T) {
	ctx := testContext(t)
	log := streamlog.NewMemory(nil)
	cfg := SSEConfig{ReplayFrom: ReplayFromEarliest}
	a := newTestSSE(t, cfg, WithStreamLog(log), WithName("a"))
	b := newTestSSE(t, cfg, WithStreamLog(log), WithName("b"))
	sendText(ctx, t, a, "orders", "from a")
	sendText(ctx, t, b, "orders", "from b")
	for _, tt := range []struct {
		s    *SSESender
		want string
	}{{a, "1=from a"}, {b, "1=from b"}} {
		c := openSSE(ctx, t, "http://"+tt.s.Addr()+"/events/orders", nil)
		sendText(ctx, t, tt.s, "orders", "live")
		if diff := cmp.Diff([]string{tt.want}, collect(ctx, t, c, "live")); diff != "" {
			t.Errorf("sender %s (-want +got):\n%s", tt.s.o.name, diff)
		}
	}
}
