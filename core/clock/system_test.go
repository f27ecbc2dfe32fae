package clock

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestSystemNow(t *testing.T) {
	c := System()
	before := time.Now()
	a := c.Now()
	b := c.Now()
	after := time.Now()
	if a.Before(before) || b.Before(a) || after.Before(b) {
		t.Errorf("System().Now not monotonic: %v, %v, %v, %v", before, a, b, after)
	}
}

func TestSystemTimerFires(t *testing.T) {
	c := System()
	begin := c.Now()
	tm := c.NewTimer(time.Millisecond)
	guard := time.NewTimer(30 * time.Second)
	defer guard.Stop()
	select {
	case v := <-tm.C():
		if v.Sub(begin) < time.Millisecond {
			t.Errorf("timer fired after %v, want at least 1ms", v.Sub(begin))
		}
	case <-guard.C:
		t.Fatal("1ms system timer did not fire within 30s")
	}
	if tm.Stop() {
		t.Error("Stop after the fire was received = true")
	}
}

func TestSystemTimerStopReset(t *testing.T) {
	c := System()
	tm := c.NewTimer(time.Hour)
	got := []bool{tm.Stop(), tm.Stop(), tm.Reset(time.Hour), tm.Reset(time.Millisecond)}
	if diff := cmp.Diff([]bool{true, false, false, true}, got); diff != "" {
		t.Errorf("[Stop Stop Reset Reset] (-want +got):\n%s", diff)
	}
	guard := time.NewTimer(30 * time.Second)
	defer guard.Stop()
	select {
	case <-tm.C():
	case <-guard.C:
		t.Fatal("reset system timer did not fire within 30s")
	}
}
