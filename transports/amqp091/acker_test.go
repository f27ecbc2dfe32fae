package amqp091

import (
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/telemetry"
)

type frameLog struct {
	mu     sync.Mutex
	frames []ackFrame
	sent   chan struct{} // receives a token per frame when set
}

func (f *frameLog) add(fr ackFrame) {
	f.mu.Lock()
	f.frames = append(f.frames, fr)
	f.mu.Unlock()
	if f.sent != nil {
		f.sent <- struct{}{}
	}
}

func (f *frameLog) Ack(tag uint64, multiple bool) error {
	f.add(ackFrame{tag: tag, multiple: multiple})
	return nil
}

func (f *frameLog) Nack(tag uint64, multiple, requeue bool) error {
	f.add(ackFrame{tag: tag, multiple: multiple, nack: true})
	return nil
}

// TestAckerHoldRunsOut checks that acks held behind a delivery that is
// not settled go out on their own once the hold time passed.
func TestAckerHoldRunsOut(t *testing.T) {
	log := &frameLog{sent: make(chan struct{}, 8)}
	a := newAcker(log, telemetry.Noop().Counter(telemetry.Desc{}), 5*time.Millisecond)
	for tag := uint64(1); tag <= 3; tag++ {
		a.track(tag)
	}
	for _, tag := range []uint64{2, 3} {
		if err := a.settle(tag, false); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		select {
		case <-log.sent:
		case <-time.After(5 * time.Second):
			t.Fatal("held acks were not sent after the hold time")
		}
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	if diff := cmp.Diff([]ackFrame{{tag: 2}, {tag: 3}}, log.frames, cmp.AllowUnexported(ackFrame{})); diff != "" {
		t.Errorf("frames (-want +got):\n%s", diff)
	}
}

func TestAckerCoalesces(t *testing.T) {
	type op struct {
		tag  uint64
		nack bool
	}
	cases := []struct {
		name      string
		delivered uint64
		hold      time.Duration
		ops       []op
		flush     bool
		want      []ackFrame
	}{
		{"coalescing off: one frame each", 3, 0, []op{{1, false}, {2, false}, {3, false}},
			false, []ackFrame{{tag: 1}, {tag: 2}, {tag: 3}}},
		{"held run released by the gap filling", 4, time.Hour, []op{{2, false}, {3, false}, {4, false}, {1, false}},
			false, []ackFrame{{tag: 4, multiple: true}}},
		{"in order with coalescing: each closes the run", 3, time.Hour, []op{{1, false}, {2, false}, {3, false}},
			false, []ackFrame{{tag: 1}, {tag: 2}, {tag: 3}}},
		{"nack goes first and alone", 3, time.Hour, []op{{2, true}, {3, false}, {1, false}},
			false, []ackFrame{{tag: 2, nack: true}, {tag: 3, multiple: true}}},
		{"run ending in a nack", 2, time.Hour, []op{{1, false}, {2, true}},
			false, []ackFrame{{tag: 1}, {tag: 2, nack: true}}},
		{"flushHeld sends what waits for a gap", 3, time.Hour, []op{{2, false}, {3, false}},
			true, []ackFrame{{tag: 2}, {tag: 3}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			log := &frameLog{}
			a := newAcker(log, telemetry.Noop().Counter(telemetry.Desc{}), c.hold)
			for tag := uint64(1); tag <= c.delivered; tag++ {
				a.track(tag)
			}
			for _, o := range c.ops {
				if err := a.settle(o.tag, o.nack); err != nil {
					t.Fatalf("settle(%d): %v", o.tag, err)
				}
			}
			if c.flush {
				a.flushHeld()
			}
			if diff := cmp.Diff(c.want, log.frames, cmp.AllowUnexported(ackFrame{})); diff != "" {
				t.Errorf("frames (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAckerRefusesDoubleSettle(t *testing.T) {
	a := newAcker(&frameLog{}, telemetry.Noop().Counter(telemetry.Desc{}), time.Hour)
	a.track(1)
	if err := a.settle(1, false); err != nil {
		t.Fatal(err)
	}
	for _, tag := range []uint64{1, 7} {
		if err := a.settle(tag, false); err == nil {
			t.Errorf("settle(%d) succeeded", tag)
		}
	}
}
