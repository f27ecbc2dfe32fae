package httpsse

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/clock"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/streamlog"
)

// TestSSESweepTrimsByAge: channels nobody sends to any more are trimmed
// by age on the sweep, those the sender holds and those only its
// configuration names.
func TestSSESweepTrimsByAge(t *testing.T) {
	ctx := testContext(t)
	clk := clock.NewFake(time.Date(2031, time.May, 6, 7, 8, 9, 0, time.UTC))
	log := streamlog.NewMemory(clk)
	// An earlier run left events in a configured channel.
	if _, err := log.AppendEvents(ctx, "sse"+logKeySep+"configured", [][]byte{[]byte("old")}); err != nil {
		t.Fatal(err)
	}
	s := newTestSSE(t, SSEConfig{LogMaxAge: time.Minute,
		Channels: map[string]SSEChannelConfig{"configured": {LogMaxAge: 2 * time.Minute}}},
		WithStreamLog(log), withTrimSweep(5*time.Millisecond))
	sendText(ctx, t, s, "held", "a")
	sendText(ctx, t, s, "held", "b")
	clk.Advance(90 * time.Second)
	waitFor(ctx, t, "the held channel trimmed by age", func() bool {
		span, err := log.EventSpan(ctx, s.hub.key("held"))
		return err == nil && span == ports.StreamSpan{First: 3, Last: 2}
	})
	if span, _ := log.EventSpan(ctx, s.hub.key("configured")); span != (ports.StreamSpan{First: 1, Last: 1}) {
		t.Errorf("configured channel trimmed before its own max age: %+v", span)
	}
	clk.Advance(time.Minute)
	waitFor(ctx, t, "the configured channel trimmed by age", func() bool {
		span, err := log.EventSpan(ctx, s.hub.key("configured"))
		return err == nil && span == ports.StreamSpan{First: 2, Last: 1}
	})
}

// TestTrimDueWhenABoundMayBeBroken checks when a channel that got events
// is handed to the trimmer.
func TestTrimDueWhenABoundMayBeBroken(t *testing.T) {
	bounds := func(string) channelSettings {
		return channelSettings{bounds: ports.StreamBounds{MaxEvents: 10, MaxBytes: 1600}}
	}
	tests := []struct {
		name   string
		events int
		bytes  int64
		kept   uint64
		known  bool
		due    bool
	}{
		{"within both bounds", 2, 20, 9, true, false},
		{"over the count", 1, 10, 11, true, true},
		{"a sixteenth of the bytes", 3, 100, 5, true, true},
		{"just under a sixteenth", 3, 99, 5, true, false},
		{"channel no longer held", 1, 1, 0, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDirtySet()
			d.grow("c", tt.events, tt.bytes)
			got := d.take(bounds, func(string) (uint64, bool) { return tt.kept, tt.known })
			want := []string{}
			if tt.due {
				want = []string{"c"}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("due (-want +got):\n%s", diff)
			}
			// What was not due stays counted; what was is forgotten.
			if again := d.take(bounds, func(string) (uint64, bool) { return 0, true }); len(again) != 0 {
				t.Errorf("due again without new events: %v", again)
			}
			if _, counted := d.grown["c"]; counted == tt.due {
				t.Errorf("growth still counted = %v after a take with due = %v", counted, tt.due)
			}
		})
	}
	d := newDirtySet()
	d.add("x")
	d.grow("y", 1, 1)
	if diff := cmp.Diff([]string{"x"}, d.take(bounds, func(n string) (uint64, bool) { return 1, true })); diff != "" {
		t.Errorf("marked channel (-want +got):\n%s", diff)
	}
}
