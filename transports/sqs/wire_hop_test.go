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
	w, err := toWire(env, nil, false)
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

// TestMinimalHeaders: minimal_headers leaves out the headers one bridge
// passes to another and keeps everything else a consumer may read (the
// content type, which SQS has no field for, trace context and application
// headers); the ID and times still travel in the metadata attribute.
func TestMinimalHeaders(t *testing.T) {
	env := messaging.NewEnvelope("orders", []byte(`{"id":1}`))
	for _, h := range []string{messaging.HeaderCorrelationID, messaging.HeaderCausationID, messaging.HeaderIdempotencyKey,
		messaging.HeaderDedupID, messaging.HeaderOrderingKey, messaging.HeaderTenantID,
		messaging.HeaderForwardedFrom, messaging.HeaderForwardedHop} {
		env.SetHeader(h, "v")
	}
	env.SetHeader(messaging.HeaderContentType, "application/json")
	env.SetHeader("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
	env.SetHeader("tenant", "acme")
	cases := []struct {
		name    string
		minimal bool
		want    []string
	}{
		{"off", false, []string{AttrEnvelope, "tenant", "traceparent", messaging.HeaderCausationID, messaging.HeaderContentType,
			messaging.HeaderCorrelationID, messaging.HeaderDedupID, messaging.HeaderForwardedFrom, messaging.HeaderForwardedHop, messaging.HeaderIdempotencyKey}},
		{"on", true, []string{AttrEnvelope, "tenant", "traceparent", messaging.HeaderContentType}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w, err := toWire(env, nil, c.minimal)
			if err != nil {
				t.Fatal(err)
			}
			var attrs []string
			for k := range w.attrs {
				attrs = append(attrs, k)
			}
			slices.Sort(attrs)
			if diff := cmp.Diff(c.want, attrs); diff != "" {
				t.Errorf("attributes (-want +got):\n%s", diff)
			}
			back := fromWire(wireToMessage(w), env.CreatedAt)
			if back.ID != env.ID || !back.CreatedAt.Equal(env.CreatedAt) {
				t.Errorf("ID or creation time lost: %q %v, want %q %v", back.ID, back.CreatedAt, env.ID, env.CreatedAt)
			}
			_, kept := back.Headers[messaging.HeaderCorrelationID]
			if kept == c.minimal {
				t.Errorf("correlation ID travelled: %v, want %v", kept, !c.minimal)
			}
		})
	}
}
