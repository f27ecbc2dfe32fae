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
	a := newAckState()
	var wire bytes.Buffer
	connect := func(present bool) {
		if err := a.ConAckReceived(&wire, &packets.Connect{}, &packets.Connack{SessionPresent: present}); err != nil {
			t.Fatal(err)
		}
	}
	connect(false)
	t1, t2, t3 := a.track(1, 1), a.track(1, 2), a.track(1, 3)
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
	t4 := a.track(1, 4)
	if err := a.ConnectionLost(nil); err != nil {
		t.Fatal(err)
	}
	connect(true)
	if !a.stale(t4) {
		t.Error("a token from the lost connection is not stale after the session resumed")
	}
	t5 := a.track(1, 5)
	a.settle(t4)
	a.settle(t5)
	if diff := cmp.Diff([]uint16{5}, ackedIDs(t, &wire)); diff != "" {
		t.Errorf("after reconnecting (-want +got):\n%s", diff)
	}
}
