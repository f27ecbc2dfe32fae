package conformance

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// RunReceiver checks that a ports.Receiver presents published messages
// intact (subject, binary payload, application headers and the reserved
// x-bridge.* headers, which the runtime rather than the receiver filters
// at ingress) and that its deliveries settle as ports describes: Ack is final,
// Retry brings the original message back (or reports NOT_SUPPORTED when
// the capabilities say so), Extend is harmless, Run stops promptly, and a
// message is not lost when emit refuses it or its delivery is left
// unsettled across a restart. newHarness is called once per subtest.
func RunReceiver(t *testing.T, newHarness func(t *testing.T) ReceiverHarness) {
	t.Helper()
	cases := []struct {
		name string
		run  func(ctx context.Context, t *testing.T, h ReceiverHarness)
	}{
		{"DeliversMessageIntact", receiverIntact},
		{"AckIsFinal", receiverAckIsFinal},
		{"ManyMessages", receiverMany},
		{"RetryRedelivers", receiverRetry},
		{"RetryUnsupported", receiverRetryUnsupported},
		{"Extend", receiverExtend},
		{"RunStopsPromptly", receiverStops},
		{"RefusedDeliveryIsNotLost", receiverRefused},
		{"UnsettledRedeliveredAfterRestart", receiverUnsettled},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t)
			h.Timing = h.Timing.withDefaults()
			if h.RetryDelay <= 0 {
				h.RetryDelay = DefaultRetryDelay
			}
			if h.Receiver == nil || h.Publish == nil {
				t.Fatal("harness needs a Receiver and Publish")
			}
			closeOnCleanup(t, h.Timing, h.Close)
			c.run(subtestContext(t, h.Timing), t, h)
		})
	}
}

func receiverIntact(ctx context.Context, t *testing.T, h ReceiverHarness) {
	c := startRun(t, h, nil)
	headers := appHeaders()
	maps.Copy(headers, reservedHeaders())
	publishOrFail(ctx, t, h, newEnvelope(binaryPayload(), headers))
	d := c.next(ctx)
	env := d.Envelope()
	if env != d.Envelope() {
		t.Error("Envelope returned a different pointer on the second call")
	}
	if env.Subject != subject {
		t.Errorf("subject %q, want %q", env.Subject, subject)
	}
	if diff := cmp.Diff(binaryPayload(), env.PayloadView()); diff != "" {
		t.Errorf("payload (-published +delivered):\n%s", diff)
	}
	if diff := headerDiff(headers, env.Headers); diff != "" {
		t.Errorf("headers (-published +delivered):\n%s", diff)
	}
	ackOrFail(ctx, t, d)
}

func receiverAckIsFinal(ctx context.Context, t *testing.T, h ReceiverHarness) {
	c := startRun(t, h, nil)
	publishOrFail(ctx, t, h, newEnvelope([]byte("ack me")))
	ackOrFail(ctx, t, c.next(ctx))
	c.expectNone(ctx)
}

func receiverMany(ctx context.Context, t *testing.T, h ReceiverHarness) {
	c := startRun(t, h, nil)
	var want, got []string
	var envs []*messaging.Envelope
	for i := range 20 {
		env := numbered("many", i)
		want = append(want, string(env.PayloadView()))
		envs = append(envs, env)
	}
	// Publish beside the consumer: a bounded source may block Publish
	// until deliveries are taken.
	ctx, fail := context.WithCancelCause(ctx)
	published := make(chan struct{})
	go func() {
		defer close(published)
		for _, env := range envs {
			if err := h.Publish(ctx, env); err != nil {
				fail(fmt.Errorf("Publish: %w", err))
				return
			}
		}
	}()
	defer func() { fail(nil); <-published }()
	for range want {
		d := c.next(ctx)
		got = append(got, string(d.Envelope().PayloadView()))
		ackOrFail(ctx, t, d)
	}
	slices.Sort(want)
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("delivered payloads (-published +delivered):\n%s", diff)
	}
	c.expectNone(ctx)
}

func receiverRetry(ctx context.Context, t *testing.T, h ReceiverHarness) {
	if !capabilities(h.Receiver).Retry {
		t.Skip("the receiver reports no Retry capability")
	}
	c := startRun(t, h, nil)
	publishOrFail(ctx, t, h, newEnvelope([]byte("retry me"), appHeaders()))
	d1 := c.next(ctx)
	first := viewOf(d1.Envelope())
	n1, ok1 := redeliveryCount(d1)
	// The runtime annotates the envelope it handles; a redelivery must not
	// show those annotations.
	d1.Envelope().SetHeader("conformance-added", "by the route")
	if err := d1.Retry(ctx, h.RetryDelay, errors.New("conformance: retry requested")); err != nil {
		t.Fatalf("Retry: %v", err)
	}
	d2 := c.next(ctx)
	second := viewOf(d2.Envelope())
	if first.ID != second.ID || first.Subject != second.Subject {
		t.Errorf("redelivered ID %q subject %q, want ID %q subject %q", second.ID, second.Subject, first.ID, first.Subject)
	}
	if diff := cmp.Diff(first.Payload, second.Payload); diff != "" {
		t.Errorf("redelivered payload (-first +second):\n%s", diff)
	}
	if diff := headerDiff(appHeaders(), second.Headers); diff != "" {
		t.Errorf("redelivered headers (-published +second):\n%s", diff)
	}
	if _, leaked := second.Headers["conformance-added"]; leaked {
		t.Error("the redelivery shows a header added to the first delivery's envelope")
	}
	if n2, ok2 := redeliveryCount(d2); ok1 && ok2 && n2 <= n1 {
		t.Errorf("redelivery count %d after %d; it must grow", n2, n1)
	}
	ackOrFail(ctx, t, d2)
	c.expectNone(ctx)
}

func receiverRetryUnsupported(ctx context.Context, t *testing.T, h ReceiverHarness) {
	if capabilities(h.Receiver).Retry {
		t.Skip("the receiver reports the Retry capability")
	}
	c := startRun(t, h, nil)
	publishOrFail(ctx, t, h, newEnvelope([]byte("cannot retry")))
	d := c.next(ctx)
	err := d.Retry(ctx, h.RetryDelay, errors.New("conformance: retry requested"))
	if fault.CodeOf(err) != fault.CodeNotSupported {
		t.Errorf("Retry = %v, want an error with code %s", err, fault.CodeNotSupported)
	}
	// The runtime then dead-letters the message and acks the delivery.
	ackOrFail(ctx, t, d)
}

func receiverExtend(ctx context.Context, t *testing.T, h ReceiverHarness) {
	c := startRun(t, h, nil)
	publishOrFail(ctx, t, h, newEnvelope([]byte("extend me")))
	d := c.next(ctx)
	if err := d.Extend(ctx, time.Now().Add(time.Minute)); err != nil && fault.CodeOf(err) != fault.CodeNotSupported {
		t.Errorf("Extend = %v, want nil or code %s", err, fault.CodeNotSupported)
	}
	ackOrFail(ctx, t, d)
}

func receiverStops(_ context.Context, t *testing.T, h ReceiverHarness) {
	startRun(t, h, nil).stop()
}

// receiverRefused stops Run while emit is refusing a delivery, the way a
// route that shuts down refuses work, and expects the message from the
// next Run.
func receiverRefused(ctx context.Context, t *testing.T, h ReceiverHarness) {
	if !capabilities(h.Receiver).RedeliversUnsettled {
		t.Skip("the receiver reports that unsettled messages are not redelivered")
	}
	entered := make(chan ports.Delivery, 1)
	c1 := startRun(t, h, func(ctx context.Context, d ports.Delivery) error {
		select {
		case entered <- d:
		default:
		}
		<-ctx.Done()
		return ctx.Err()
	})
	publishOrFail(ctx, t, h, newEnvelope([]byte("refused once")))
	var refused ports.Delivery
	select {
	case refused = <-entered:
	case <-ctx.Done():
		t.Fatalf("no delivery: %v", ctx.Err())
	}
	c1.stop()
	restart(ctx, t, h)
	c2 := startRun(t, h, nil)
	d := c2.next(ctx)
	if got := string(d.Envelope().PayloadView()); got != "refused once" {
		t.Fatalf("next Run delivered %q, want the refused message", got)
	}
	if d.Envelope().ID != refused.Envelope().ID {
		t.Errorf("redelivered ID %q, want %q", d.Envelope().ID, refused.Envelope().ID)
	}
	ackOrFail(ctx, t, d)
}

func receiverUnsettled(ctx context.Context, t *testing.T, h ReceiverHarness) {
	if !capabilities(h.Receiver).RedeliversUnsettled {
		t.Skip("the receiver reports that unsettled messages are not redelivered")
	}
	c1 := startRun(t, h, nil)
	publishOrFail(ctx, t, h, newEnvelope([]byte("left unsettled"), appHeaders()))
	d1 := c1.next(ctx)
	first := viewOf(d1.Envelope())
	n1, ok1 := redeliveryCount(d1)
	c1.stop()
	restart(ctx, t, h)
	c2 := startRun(t, h, nil)
	d2 := c2.next(ctx)
	second := viewOf(d2.Envelope())
	if first.ID != second.ID || first.Subject != second.Subject || string(first.Payload) != string(second.Payload) {
		t.Errorf("after restart got ID %q subject %q payload %q, want %q %q %q",
			second.ID, second.Subject, second.Payload, first.ID, first.Subject, first.Payload)
	}
	if n2, ok2 := redeliveryCount(d2); ok1 && ok2 && n2 <= n1 {
		t.Errorf("redelivery count %d after %d; it must grow", n2, n1)
	}
	ackOrFail(ctx, t, d2)
	c2.expectNone(ctx)
}
