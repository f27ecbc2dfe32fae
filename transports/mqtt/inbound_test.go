package mqtt

import (
	"testing"

	"github.com/eclipse/paho.golang/paho"
	"github.com/google/go-cmp/cmp"
)

func TestQueueBoundsQoS0AndKeepsOrder(t *testing.T) {
	q := newQueue(2)
	msg := func(name string, qos1 bool) *inbound {
		m := &inbound{pub: &paho.Publish{Topic: name}}
		if qos1 {
			m.tok = &ackToken{qos: 1}
		}
		return m
	}
	accepted := []bool{
		q.push(msg("a0", false)), q.push(msg("b1", true)), q.push(msg("c0", false)),
		q.push(msg("d0", false)), // the QoS 0 limit is reached
		q.push(msg("e1", true)),  // QoS 1 is bounded by receive_maximum, not here
	}
	if diff := cmp.Diff([]bool{true, true, true, false, true}, accepted); diff != "" {
		t.Errorf("accepted (-want +got):\n%s", diff)
	}
	first := q.pop()
	q.pushFront(first) // a refused hand-over goes back to the front
	var order []string
	for m := q.pop(); m != nil; m = q.pop() {
		order = append(order, m.pub.Topic)
	}
	if diff := cmp.Diff([]string{"a0", "b1", "c0", "e1"}, order); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	if !q.push(msg("f0", false)) || !q.push(msg("g0", false)) {
		t.Error("QoS 0 room was not given back by pop")
	}
}
