package sqs

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/messaging"
)

// TestHopOnlyHeadersAreNotSent: the route, source and route-override
// headers describe the hop into this bridge and every bridge strips them
// at ingress, so the sender leaves them out (as the MQTT, AMQP 0-9-1 and
// Service Bus senders do) instead of spending SQS attributes and request
// bytes on them. The content type stays: SQS has no native field for it.
func TestHopOnlyHeadersAreNotSent(t *testing.T) {
	env := messaging.NewEnvelope("orders", []byte(`{"id":1}`))
	env.SetHeader(messaging.HeaderRouteID, "r1")
	env.SetHeader(messaging.HeaderSourceID, "in")
	env.SetHeader(messaging.HeaderRouteOverride, "b2")
	env.SetHeader(messaging.HeaderContentType, "application/json")
	env.SetHeader("tenant", "acme")
	w, err := toWire(env, nil)
	if err != nil {
		t.Fatal(err)
	}
	var attrs []string
	for k := range w.attrs {
		attrs = append(attrs, k)
	}
	slices.Sort(attrs)
	if diff := cmp.Diff([]string{AttrEnvelope, "tenant", messaging.HeaderContentType}, attrs); diff != "" {
		t.Errorf("attributes (-want +got):\n%s", diff)
	}
	back := fromWire(wireToMessage(w), env.CreatedAt)
	for _, h := range []string{messaging.HeaderRouteID, messaging.HeaderSourceID, messaging.HeaderRouteOverride} {
		if v, ok := back.Headers[h]; ok {
			t.Errorf("%s travelled (as %v)", h, v)
		}
	}
	if back.Headers[messaging.HeaderContentType] != "application/json" {
		t.Errorf("content type lost: %v", back.Headers)
	}
}
