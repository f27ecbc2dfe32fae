package mqtt

import (
	"bytes"
	"testing"

	"github.com/eclipse/paho.golang/packets"
	"github.com/google/go-cmp/cmp"
)

// ackedIDs reads the PUBACK packet ids written to buf.
func ackedIDs(t *testing.T, buf *bytes.Buffer) []uint16 {
	t.Helper()
	var ids []uint16
	for buf.Len() > 0 {
		cp, err := packets.ReadPacket(buf)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, cp.Content.(*packets.Puback).PacketID)
	}
	return ids
}

func TestAcksGoOutInArrivalOrder(t *testing.T) {
	a := newAckState(0)
	var wire bytes.Buffer
	connect := func(present bool) {
		if err := a.ConAckReceived(&wire, &packets.Connect{}, &packets.Connack{SessionPresent: present}); err != nil {
			t.Fatal(err)
		}
	}
	connect(false)
	track := func(id uint16) *ackToken { tok, _ := a.track(1, id); return tok }
	t1, t2, t3 := track(1), track(2), track(3)
	a.settle(t3)
	a.settle(t2)
	if got := ackedIDs(t, &wire); len(got) != 0 {
		t.Fatalf("acknowledged %v before the first message was settled", got)
	}
	a.settle(t1)
	a.settle(t1) // twice is harmless
	if diff := cmp.Diff([]uint16{1, 2, 3}, ackedIDs(t, &wire)); diff != "" {
		t.Errorf("PUBACK order (-want +got):\n%s", diff)
	}
	a.settle(nil) // QoS 0

	// A token from a lost connection is never acknowledged on the next.
	t4 := track(4)
	if err := a.ConnectionLost(nil); err != nil {
		t.Fatal(err)
	}
	connect(true)
	if !a.stale(t4) {
		t.Error("a token from the lost connection is not stale after the session resumed")
	}
	t5 := track(5)
	a.settle(t4)
	a.settle(t5)
	if diff := cmp.Diff([]uint16{5}, ackedIDs(t, &wire)); diff != "" {
		t.Errorf("after reconnecting (-want +got):\n%s", diff)
	}
}

// TestTrackWaitsBeyondReceiveMaximum checks the guard against a broker
// that sends more than Receive Maximum unacknowledged messages: the next
// one waits in track until an acknowledgement leaves, or until the
// connection ends (its token then belongs to the lost connection).
func TestTrackWaitsBeyondReceiveMaximum(t *testing.T) {
	a := newAckState(2)
	var wire bytes.Buffer
	if err := a.ConAckReceived(&wire, &packets.Connect{}, &packets.Connack{}); err != nil {
		t.Fatal(err)
	}
	t1, w1 := a.track(1, 1)
	_, w2 := a.track(1, 2)
	if w1 || w2 {
		t.Fatal("track waited within receive maximum")
	}
	type result struct {
		tok    *ackToken
		waited bool
	}
	third := make(chan result, 1)
	go func() { tok, w := a.track(1, 3); third <- result{tok, w} }()
	waiting := func() bool { a.mu.Lock(); defer a.mu.Unlock(); return a.waiting == 1 }
	waitFor(testContext(t), t, "the third message to wait", waiting)
	a.settle(t1)
	r := <-third
	if !r.waited || r.tok.gen != a.generation() {
		t.Errorf("third message: waited %v, generation %d of %d", r.waited, r.tok.gen, a.generation())
	}

	// At the limit again; a lost connection releases the waiting message.
	fourth := make(chan result, 1)
	go func() { tok, w := a.track(1, 4); fourth <- result{tok, w} }()
	waitFor(testContext(t), t, "the fourth message to wait", waiting)
	if err := a.ConnectionLost(nil); err != nil {
		t.Fatal(err)
	}
	if r := <-fourth; r.tok.gen == a.generation() {
		t.Error("the message that waited across a lost connection belongs to the new one")
	}
}
