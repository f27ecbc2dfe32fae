package conformance

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// trimOK trims channel to b and compares the report with want.
func trimOK(ctx context.Context, t *testing.T, l ports.StreamLog, channel string, b ports.StreamBounds, want ports.StreamTrim) {
	t.Helper()
	got, err := l.TrimEvents(ctx, channel, b)
	if err != nil {
		t.Fatalf("Trim(%q, %+v): %v", channel, b, err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Trim(%q, %+v) (-want +got):\n%s", channel, b, diff)
	}
}

// tenBytes returns n bodies of exactly 10 bytes, numbered from from.
func tenBytes(from, n int) [][]byte {
	out := make([][]byte, n)
	for i := range n {
		out[i] = fmt.Appendf(nil, "event-%04d", from+i)
	}
	return out
}

func streamTrimNone(ctx context.Context, t *testing.T, h StreamLogHarness) {
	appendOK(ctx, t, h.Log, "c", tenBytes(1, 4), 1)
	h.Clock.Advance(1000 * time.Hour)
	trimOK(ctx, t, h.Log, "c", ports.StreamBounds{}, ports.StreamTrim{Span: ports.StreamSpan{First: 1, Last: 4}})
	checkLog(ctx, t, h.Log, "c", ports.StreamSpan{First: 1, Last: 4}, seqNumbered(1, tenBytes(1, 4)))
}

func streamTrimCount(ctx context.Context, t *testing.T, h StreamLogHarness) {
	all := tenBytes(1, 6)
	appendOK(ctx, t, h.Log, "c", all, 1)
	trimOK(ctx, t, h.Log, "c", ports.StreamBounds{MaxEvents: 4},
		ports.StreamTrim{Events: 2, Bytes: 20, Span: ports.StreamSpan{First: 3, Last: 6}})
	trimOK(ctx, t, h.Log, "c", ports.StreamBounds{MaxEvents: 4},
		ports.StreamTrim{Span: ports.StreamSpan{First: 3, Last: 6}})
	checkLog(ctx, t, h.Log, "c", ports.StreamSpan{First: 3, Last: 6}, seqNumbered(3, all[2:]))
	// Reading from before what is kept starts at the oldest kept event.
	if got := strip(readAll(ctx, t, h.Log, "c", 1)); len(got) == 0 || got[0].Seq != 3 {
		t.Errorf("Read after 1 starts at %v, want seq 3", got)
	}
}

func streamTrimBytes(ctx context.Context, t *testing.T, h StreamLogHarness) {
	all := tenBytes(1, 5)
	appendOK(ctx, t, h.Log, "c", all, 1)
	trimOK(ctx, t, h.Log, "c", ports.StreamBounds{MaxBytes: 25},
		ports.StreamTrim{Events: 3, Bytes: 30, Span: ports.StreamSpan{First: 4, Last: 5}})
	checkLog(ctx, t, h.Log, "c", ports.StreamSpan{First: 4, Last: 5}, seqNumbered(4, all[3:]))
	// An event larger than the bound goes too.
	big := make([]byte, 40)
	appendOK(ctx, t, h.Log, "c", [][]byte{big}, 6)
	trimOK(ctx, t, h.Log, "c", ports.StreamBounds{MaxBytes: 30},
		ports.StreamTrim{Events: 3, Bytes: 60, Span: ports.StreamSpan{First: 7, Last: 6}})
}

func streamTrimAge(ctx context.Context, t *testing.T, h StreamLogHarness) {
	appendOK(ctx, t, h.Log, "c", tenBytes(1, 2), 1) // t0
	h.Clock.Advance(time.Minute)
	appendOK(ctx, t, h.Log, "c", tenBytes(3, 1), 3) // t0+1m
	h.Clock.Advance(time.Minute)
	appendOK(ctx, t, h.Log, "c", tenBytes(4, 1), 4) // t0+2m
	h.Clock.Advance(30 * time.Second)               // now t0+2m30s
	trimOK(ctx, t, h.Log, "c", ports.StreamBounds{MaxAge: time.Minute},
		ports.StreamTrim{Events: 3, Bytes: 30, Span: ports.StreamSpan{First: 4, Last: 4}})
	checkLog(ctx, t, h.Log, "c", ports.StreamSpan{First: 4, Last: 4}, seqNumbered(4, tenBytes(4, 1)))
}

func streamTrimAll(ctx context.Context, t *testing.T, h StreamLogHarness) {
	appendOK(ctx, t, h.Log, "c", tenBytes(1, 4), 1)
	h.Clock.Advance(10 * time.Minute)
	appendOK(ctx, t, h.Log, "c", tenBytes(5, 4), 5)
	for _, c := range []struct {
		name string
		b    ports.StreamBounds
		want ports.StreamSpan
	}{
		{"count strictest", ports.StreamBounds{MaxEvents: 7, MaxBytes: 75, MaxAge: time.Hour}, ports.StreamSpan{First: 2, Last: 8}},
		{"bytes strictest", ports.StreamBounds{MaxEvents: 7, MaxBytes: 55, MaxAge: time.Hour}, ports.StreamSpan{First: 4, Last: 8}},
		{"age strictest", ports.StreamBounds{MaxEvents: 7, MaxBytes: 55, MaxAge: time.Minute}, ports.StreamSpan{First: 5, Last: 8}},
	} {
		got, err := h.Log.TrimEvents(ctx, "c", c.b)
		if err != nil {
			t.Fatalf("%s: Trim: %v", c.name, err)
		}
		if got.Span != c.want {
			t.Errorf("%s: span after Trim = %+v, want %+v", c.name, got.Span, c.want)
		}
	}
	checkLog(ctx, t, h.Log, "c", ports.StreamSpan{First: 5, Last: 8}, seqNumbered(5, tenBytes(5, 4)))
}

func streamTrimEverything(ctx context.Context, t *testing.T, h StreamLogHarness) {
	appendOK(ctx, t, h.Log, "c", tenBytes(1, 3), 1)
	h.Clock.Advance(time.Hour)
	trimOK(ctx, t, h.Log, "c", ports.StreamBounds{MaxAge: time.Minute},
		ports.StreamTrim{Events: 3, Bytes: 30, Span: ports.StreamSpan{First: 4, Last: 3}})
	checkLog(ctx, t, h.Log, "c", ports.StreamSpan{First: 4, Last: 3}, []seqData{})
	appendOK(ctx, t, h.Log, "c", tenBytes(4, 1), 4)
	checkLog(ctx, t, h.Log, "c", ports.StreamSpan{First: 4, Last: 4}, seqNumbered(4, tenBytes(4, 1)))
}

func streamConcurrent(ctx context.Context, t *testing.T, h StreamLogHarness) {
	const writers, rounds = 6, 15
	type result struct {
		first uint64
		evs   [][]byte
	}
	results := make(chan result, writers*rounds)
	errs := make(chan error, writers*rounds)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for r := range rounds {
				evs := events(fmt.Sprintf("w%d-r%d", w, r), 0, 1+(w+r)%3)
				first, err := h.Log.AppendEvents(ctx, "c", evs)
				if err != nil {
					errs <- err
					return
				}
				results <- result{first, evs}
			}
		})
	}
	wg.Wait()
	close(results)
	close(errs)
	for err := range errs {
		t.Fatalf("concurrent Append: %v", err)
	}
	want := map[uint64]string{}
	var total uint64
	for r := range results {
		for i, e := range r.evs {
			seq := r.first + uint64(i)
			if prev, dup := want[seq]; dup {
				t.Fatalf("seq %d given to %q and %q", seq, prev, e)
			}
			want[seq] = string(e)
		}
		total += uint64(len(r.evs))
	}
	got := readAll(ctx, t, h.Log, "c", 0)
	if uint64(len(got)) != total {
		t.Fatalf("read %d events, appended %d", len(got), total)
	}
	for i, e := range got {
		if e.Seq != uint64(i)+1 || want[e.Seq] != string(e.Data) {
			t.Fatalf("event %d is seq %d %q, want seq %d %q", i, e.Seq, e.Data, i+1, want[uint64(i)+1])
		}
	}
}

func streamReopen(ctx context.Context, t *testing.T, h StreamLogHarness) {
	if h.Reopen == nil {
		t.Skip("the harness cannot reopen the log")
	}
	appendOK(ctx, t, h.Log, "kept", tenBytes(1, 5), 1)
	trimOK(ctx, t, h.Log, "kept", ports.StreamBounds{MaxEvents: 3},
		ports.StreamTrim{Events: 2, Bytes: 20, Span: ports.StreamSpan{First: 3, Last: 5}})
	appendOK(ctx, t, h.Log, "gone", tenBytes(1, 2), 1)
	trimOK(ctx, t, h.Log, "gone", ports.StreamBounds{MaxBytes: 1},
		ports.StreamTrim{Events: 2, Bytes: 20, Span: ports.StreamSpan{First: 3, Last: 2}})
	l := h.Reopen(t)
	checkLog(ctx, t, l, "kept", ports.StreamSpan{First: 3, Last: 5}, seqNumbered(3, tenBytes(3, 3)))
	checkLog(ctx, t, l, "gone", ports.StreamSpan{First: 3, Last: 2}, []seqData{})
	appendOK(ctx, t, l, "kept", tenBytes(6, 1), 6)
	appendOK(ctx, t, l, "gone", tenBytes(3, 1), 3)
}
