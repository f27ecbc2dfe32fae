package conformance

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// RunSender checks that a ports.Sender delivers messages intact to the
// address it is given, keeps subject and address apart, carries
// application and reserved headers, honours context cancellation and
// Close, and copes with concurrent use. newHarness is called once per
// subtest.
func RunSender(t *testing.T, newHarness func(t *testing.T) SenderHarness) {
	t.Helper()
	cases := []struct {
		name string
		run  func(ctx context.Context, t *testing.T, h SenderHarness)
	}{
		{"PayloadIntact", senderPayloadIntact},
		{"SubjectIsNotTheAddress", senderSubjectIsNotTheAddress},
		{"RoutesByAddress", senderRoutesByAddress},
		{"StringHeadersRoundTrip", senderStringHeaders},
		{"ReservedHeadersRoundTrip", senderReservedHeaders},
		{"EmptyAddress", senderEmptyAddress},
		{"CancelledContext", senderCancelledContext},
		{"SendAfterClose", senderAfterClose},
		{"ConcurrentSends", senderConcurrent},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t)
			h.Timing = h.Timing.withDefaults()
			if h.Sender == nil || h.Receive == nil || len(h.Addresses) == 0 {
				t.Fatal("harness needs a Sender, Receive and at least one address")
			}
			closeOnCleanup(t, h.Timing, h.Close)
			c.run(subtestContext(t, h.Timing), t, h)
		})
	}
}

func senderPayloadIntact(ctx context.Context, t *testing.T, h SenderHarness) {
	want := binaryPayload()
	sendOrFail(ctx, t, h.Sender, newEnvelope(want), h.Addresses[0])
	got := receive(ctx, t, h.Target, h.Addresses[0])
	if diff := cmp.Diff(want, got.Payload); diff != "" {
		t.Errorf("payload changed in transit (-sent +received):\n%s", diff)
	}
}

func senderSubjectIsNotTheAddress(ctx context.Context, t *testing.T, h SenderHarness) {
	addr := h.Addresses[0]
	if addr == subject {
		t.Skipf("the harness address equals the test subject %q", subject)
	}
	env := newEnvelope([]byte("subject check"), appHeaders())
	before := viewOf(env)
	sendOrFail(ctx, t, h.Sender, env, addr)
	if diff := cmp.Diff(before, viewOf(env)); diff != "" {
		t.Errorf("Send modified the caller's envelope (-before +after):\n%s", diff)
	}
	got := receive(ctx, t, h.Target, addr)
	if got.Subject != subject {
		t.Errorf("received subject %q, want %q (sent to address %q)", got.Subject, subject, addr)
	}
	if got.Address != "" && got.Address != addr {
		t.Errorf("received at address %q, want %q", got.Address, addr)
	}
}

func senderRoutesByAddress(ctx context.Context, t *testing.T, h SenderHarness) {
	if len(h.Addresses) < 2 {
		t.Skip("the harness offers a single address")
	}
	a, b := h.Addresses[0], h.Addresses[1]
	sendOrFail(ctx, t, h.Sender, newEnvelope([]byte("for a")), a)
	sendOrFail(ctx, t, h.Sender, newEnvelope([]byte("for b")), b)
	for addr, want := range map[string]string{a: "for a", b: "for b"} {
		got := receive(ctx, t, h.Target, addr)
		if string(got.Payload) != want || got.Subject != subject {
			t.Errorf("at %q: got subject %q payload %q, want %q %q", addr, got.Subject, got.Payload, subject, want)
		}
	}
	expectNothing(ctx, t, h.Target, a)
}

func senderStringHeaders(ctx context.Context, t *testing.T, h SenderHarness) {
	want := appHeaders()
	sendOrFail(ctx, t, h.Sender, newEnvelope([]byte("headers"), want), h.Addresses[0])
	got := receive(ctx, t, h.Target, h.Addresses[0])
	if diff := headerDiff(want, got.Headers); diff != "" {
		t.Errorf("headers (-sent +received):\n%s", diff)
	}
}

func senderReservedHeaders(ctx context.Context, t *testing.T, h SenderHarness) {
	want := reservedHeaders()
	sendOrFail(ctx, t, h.Sender, newEnvelope([]byte("reserved"), want), h.Addresses[0])
	got := receive(ctx, t, h.Target, h.Addresses[0])
	if diff := headerDiff(want, got.Headers); diff != "" {
		t.Errorf("reserved headers (-sent +received):\n%s", diff)
	}
}

func senderEmptyAddress(ctx context.Context, t *testing.T, h SenderHarness) {
	err := h.Sender.Send(ctx, ports.OutboundMessage{Envelope: newEnvelope([]byte("no address"))})
	switch {
	case !h.EmptyAddressOK:
		if err == nil {
			t.Error("Send with an empty address succeeded; the harness declares it must fail")
		}
	case err != nil:
		t.Errorf("Send with an empty address: %v; the harness declares a default", err)
	case h.DefaultAddress != "":
		got := receive(ctx, t, h.Target, h.DefaultAddress)
		if string(got.Payload) != "no address" || got.Subject != subject {
			t.Errorf("at the default address: subject %q payload %q", got.Subject, got.Payload)
		}
	}
}

func senderCancelledContext(ctx context.Context, t *testing.T, h SenderHarness) {
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	err := h.Sender.Send(cancelled, ports.OutboundMessage{Envelope: newEnvelope([]byte("too late")), Address: h.Addresses[0]})
	if err == nil {
		t.Fatal("Send with a cancelled context succeeded")
	}
	if !fault.IsRecoverable(err) {
		t.Errorf("Send with a cancelled context = %v (class %v); a cancelled send must stay retryable", err, fault.ClassOf(err))
	}
}

func senderAfterClose(ctx context.Context, t *testing.T, h SenderHarness) {
	c, ok := h.Sender.(ports.Closer)
	if !ok {
		t.Skip("the sender does not implement ports.Closer")
	}
	if err := c.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	var err error
	noPanic(t, "Send after Close", func() {
		err = h.Sender.Send(ctx, ports.OutboundMessage{Envelope: newEnvelope([]byte("closed")), Address: h.Addresses[0]})
	})
	checkClosedError(t, "Send after Close", err)
}

// checkClosedError asserts the error ports.Closer prescribes after Close.
func checkClosedError(t *testing.T, what string, err error) {
	t.Helper()
	switch {
	case err == nil:
		t.Errorf("%s succeeded", what)
	case !fault.IsRecoverable(err) || fault.CodeOf(err) != fault.CodeUnavailable:
		t.Errorf("%s = %v (class %v, code %s); want transient UNAVAILABLE", what, err, fault.ClassOf(err), fault.CodeOf(err))
	}
}

func senderConcurrent(ctx context.Context, t *testing.T, h SenderHarness) {
	const workers, each = 8, 8
	var wg sync.WaitGroup
	var want []string
	for w := range workers {
		for i := range each {
			want = append(want, fmt.Sprintf("w%d-%03d", w, i))
		}
		wg.Go(func() {
			for i := range each {
				env := newEnvelope(fmt.Appendf(nil, "w%d-%03d", w, i))
				if err := h.Sender.Send(ctx, ports.OutboundMessage{Envelope: env, Address: h.Addresses[0]}); err != nil {
					t.Errorf("concurrent Send: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	got := make([]Received, 0, len(want))
	for range want {
		got = append(got, receive(ctx, t, h.Target, h.Addresses[0]))
	}
	slices.Sort(want)
	if diff := cmp.Diff(want, sortedPayloads(got, func(r Received) []byte { return r.Payload })); diff != "" {
		t.Errorf("messages sent concurrently (-sent +received):\n%s", diff)
	}
}
