package conformance

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/clock"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// StreamLogHarness is what RunStreamLog needs for one subtest.
type StreamLogHarness struct {
	// Log is a fresh, empty stream log.
	Log ports.StreamLog
	// Clock is the clock Log was built with. The suite advances it to age
	// events; it never moves on its own.
	Clock *clock.Fake
	// Reopen, when set, closes the current log and returns a new one on
	// the same data, built with the same Clock. Persistent stores set it;
	// the durability subtests are skipped without it.
	Reopen func(t *testing.T) ports.StreamLog
	// Close, when set, releases the harness when the subtest ends.
	Close StoreClose
	// Timeout bounds the subtest; zero means DefaultStoreTimeout.
	Timeout time.Duration
}

// RunStreamLog checks a ports.StreamLog: a channel numbers its events from
// 1 without holes, Read pages after a sequence number oldest first, data
// is stored and returned intact and unaliased, channels are independent,
// Trim removes the oldest events until every bound holds (count, bytes,
// age, and all three at once) and never lets a number be given twice,
// concurrent appends get distinct, contiguous numbers, and, when the
// harness can reopen the log, events, numbering and trims survive a
// reopen. newHarness is called once per subtest.
//
// Beyond the port's godoc the suite pins down these choices:
//   - AppendedAt is the store clock's time of the append, to the
//     nanosecond.
//   - An event is older than MaxAge when now - AppendedAt > MaxAge.
//   - MaxBytes counts the data bytes only; a single event larger than
//     MaxBytes is trimmed too.
func RunStreamLog(t *testing.T, newHarness func(t *testing.T) StreamLogHarness) {
	t.Helper()
	cases := []struct {
		name string
		run  func(ctx context.Context, t *testing.T, h StreamLogHarness)
	}{
		{"NumbersFromOne", streamNumbers},
		{"AppendNothing", streamAppendNothing},
		{"UnknownChannelIsEmpty", streamUnknown},
		{"ReadAfterPages", streamPages},
		{"ReadDefaultLimit", streamDefaultLimit},
		{"StoreKeepsItsOwnCopies", streamNoAliasing},
		{"ChannelsIndependent", streamChannels},
		{"AppendedAtFromClock", streamAppendedAt},
		{"TrimNoBounds", streamTrimNone},
		{"TrimByCount", streamTrimCount},
		{"TrimByBytes", streamTrimBytes},
		{"TrimByAge", streamTrimAge},
		{"TrimStrictestBoundWins", streamTrimAll},
		{"TrimEverythingKeepsNumbering", streamTrimEverything},
		{"ConcurrentAppends", streamConcurrent},
		{"SurvivesReopen", streamReopen},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t)
			if h.Log == nil || h.Clock == nil {
				t.Fatal("harness needs a Log and a Clock")
			}
			ctx := storeContext(t, h.Timeout, h.Close)
			c.run(ctx, t, h)
		})
	}
}

// events returns n event bodies "<prefix>-<i>", i from from.
func events(prefix string, from, n int) [][]byte {
	out := make([][]byte, n)
	for i := range n {
		out[i] = fmt.Appendf(nil, "%s-%d", prefix, from+i)
	}
	return out
}

// appendOK appends evs to channel and checks the first number given.
func appendOK(ctx context.Context, t *testing.T, l ports.StreamLog, channel string, evs [][]byte, wantFirst uint64) {
	t.Helper()
	first, err := l.AppendEvents(ctx, channel, evs)
	if err != nil {
		t.Fatalf("Append(%q, %d events): %v", channel, len(evs), err)
	}
	if first != wantFirst {
		t.Fatalf("Append(%q) gave first = %d, want %d", channel, first, wantFirst)
	}
}

// readAll returns every kept event of channel after after, in pages of 7.
func readAll(ctx context.Context, t *testing.T, l ports.StreamLog, channel string, after uint64) []ports.StreamEvent {
	t.Helper()
	var out []ports.StreamEvent
	for {
		page, err := l.ReadEvents(ctx, channel, after, 7)
		if err != nil {
			t.Fatalf("Read(%q, %d): %v", channel, after, err)
		}
		if len(page) > 7 {
			t.Fatalf("Read(%q, %d, 7) returned %d events", channel, after, len(page))
		}
		if len(page) == 0 {
			return out
		}
		out = append(out, page...)
		after = page[len(page)-1].Seq
	}
}

// seqData is an event without its time, for comparisons.
type seqData struct {
	Seq  uint64
	Data string
}

func strip(evs []ports.StreamEvent) []seqData {
	out := make([]seqData, len(evs))
	for i, e := range evs {
		out[i] = seqData{e.Seq, string(e.Data)}
	}
	return out
}

// seqNumbered pairs bodies with numbers from first.
func seqNumbered(first uint64, bodies [][]byte) []seqData {
	out := make([]seqData, len(bodies))
	for i, b := range bodies {
		out[i] = seqData{first + uint64(i), string(b)}
	}
	return out
}

// checkLog compares channel's span and content with want.
func checkLog(ctx context.Context, t *testing.T, l ports.StreamLog, channel string, wantSpan ports.StreamSpan, want []seqData) {
	t.Helper()
	span, err := l.EventSpan(ctx, channel)
	if err != nil {
		t.Fatalf("Span(%q): %v", channel, err)
	}
	if span != wantSpan {
		t.Errorf("Span(%q) = %+v, want %+v", channel, span, wantSpan)
	}
	if diff := cmp.Diff(want, strip(readAll(ctx, t, l, channel, 0))); diff != "" {
		t.Errorf("events of %q (-want +got):\n%s", channel, diff)
	}
}

func streamNumbers(ctx context.Context, t *testing.T, h StreamLogHarness) {
	a, b := events("e", 1, 3), events("e", 4, 2)
	appendOK(ctx, t, h.Log, "c", a, 1)
	appendOK(ctx, t, h.Log, "c", b, 4)
	appendOK(ctx, t, h.Log, "c", events("e", 6, 1), 6)
	checkLog(ctx, t, h.Log, "c", ports.StreamSpan{First: 1, Last: 6}, seqNumbered(1, events("e", 1, 6)))
}

func streamAppendNothing(ctx context.Context, t *testing.T, h StreamLogHarness) {
	appendOK(ctx, t, h.Log, "c", nil, 1)
	appendOK(ctx, t, h.Log, "c", events("e", 1, 2), 1)
	appendOK(ctx, t, h.Log, "c", [][]byte{}, 3)
	checkLog(ctx, t, h.Log, "c", ports.StreamSpan{First: 1, Last: 2}, seqNumbered(1, events("e", 1, 2)))
}

func streamUnknown(ctx context.Context, t *testing.T, h StreamLogHarness) {
	checkLog(ctx, t, h.Log, "never", ports.StreamSpan{First: 1, Last: 0}, []seqData{})
	tr, err := h.Log.TrimEvents(ctx, "never", ports.StreamBounds{MaxEvents: 1})
	if err != nil {
		t.Fatalf("Trim of an unknown channel: %v", err)
	}
	if diff := cmp.Diff(ports.StreamTrim{Span: ports.StreamSpan{First: 1, Last: 0}}, tr); diff != "" {
		t.Errorf("Trim of an unknown channel (-want +got):\n%s", diff)
	}
}

func streamPages(ctx context.Context, t *testing.T, h StreamLogHarness) {
	all := events("p", 1, 10)
	appendOK(ctx, t, h.Log, "c", all, 1)
	for _, c := range []struct {
		after uint64
		limit int
		want  []seqData
	}{
		{0, 3, seqNumbered(1, all[:3])},
		{3, 3, seqNumbered(4, all[3:6])},
		{8, 5, seqNumbered(9, all[8:])},
		{10, 5, []seqData{}},
		{42, 5, []seqData{}},
	} {
		got, err := h.Log.ReadEvents(ctx, "c", c.after, c.limit)
		if err != nil {
			t.Fatalf("Read(after %d, limit %d): %v", c.after, c.limit, err)
		}
		if diff := cmp.Diff(c.want, strip(got)); diff != "" {
			t.Errorf("Read(after %d, limit %d) (-want +got):\n%s", c.after, c.limit, diff)
		}
	}
}

func streamDefaultLimit(ctx context.Context, t *testing.T, h StreamLogHarness) {
	appendOK(ctx, t, h.Log, "c", events("d", 1, ports.DefaultStreamReadLimit+5), 1)
	for _, limit := range []int{0, -1} {
		got, err := h.Log.ReadEvents(ctx, "c", 0, limit)
		if err != nil {
			t.Fatalf("Read(limit %d): %v", limit, err)
		}
		if len(got) != ports.DefaultStreamReadLimit {
			t.Errorf("Read(limit %d) returned %d events, want %d", limit, len(got), ports.DefaultStreamReadLimit)
		}
	}
}

func streamNoAliasing(ctx context.Context, t *testing.T, h StreamLogHarness) {
	in := [][]byte{[]byte("alpha"), []byte("beta")}
	appendOK(ctx, t, h.Log, "c", in, 1)
	in[0][0] = 'X'
	got, err := h.Log.ReadEvents(ctx, "c", 0, 0)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if len(got) == 2 {
		got[1].Data[0] = 'Y'
	}
	checkLog(ctx, t, h.Log, "c", ports.StreamSpan{First: 1, Last: 2}, []seqData{{1, "alpha"}, {2, "beta"}})
}

func streamChannels(ctx context.Context, t *testing.T, h StreamLogHarness) {
	appendOK(ctx, t, h.Log, "a", events("a", 1, 3), 1)
	appendOK(ctx, t, h.Log, "b", events("b", 1, 2), 1)
	appendOK(ctx, t, h.Log, "a", events("a", 4, 1), 4)
	if _, err := h.Log.TrimEvents(ctx, "a", ports.StreamBounds{MaxEvents: 1}); err != nil {
		t.Fatalf("Trim: %v", err)
	}
	checkLog(ctx, t, h.Log, "a", ports.StreamSpan{First: 4, Last: 4}, []seqData{{4, "a-4"}})
	checkLog(ctx, t, h.Log, "b", ports.StreamSpan{First: 1, Last: 2}, seqNumbered(1, events("b", 1, 2)))
}

func streamAppendedAt(ctx context.Context, t *testing.T, h StreamLogHarness) {
	t0 := h.Clock.Now()
	appendOK(ctx, t, h.Log, "c", events("t", 1, 2), 1)
	h.Clock.Advance(90 * time.Second)
	appendOK(ctx, t, h.Log, "c", events("t", 3, 1), 3)
	got := readAll(ctx, t, h.Log, "c", 0)
	want := []time.Time{t0, t0, t0.Add(90 * time.Second)}
	if len(got) != len(want) {
		t.Fatalf("read %d events, want %d", len(got), len(want))
	}
	for i, e := range got {
		if !e.AppendedAt.Equal(want[i]) {
			t.Errorf("event %d: AppendedAt = %v, want %v", e.Seq, e.AppendedAt, want[i])
		}
	}
}
