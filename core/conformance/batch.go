package conformance

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// RunBatchSender checks the SendBatch contract of a ports.BatchSender:
// one index-aligned result per message, every accepted message delivered
// to its own address with subject and headers intact, failures confined to
// their message, and whole-batch errors only before dispatch. It does not
// repeat RunSender; run both for a batch sender. newHarness is called once
// per subtest.
func RunBatchSender(t *testing.T, newHarness func(t *testing.T) BatchSenderHarness) {
	t.Helper()
	cases := []struct {
		name string
		run  func(ctx context.Context, t *testing.T, h BatchSenderHarness)
	}{
		{"ResultsAlignWithInput", batchResultsAlign},
		{"EmptyBatch", batchEmpty},
		{"FailureIsIsolated", batchFailureIsolated},
		{"CancelledContext", batchCancelledContext},
		{"SendBatchAfterClose", batchAfterClose},
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

// batchOf builds n messages spread over the harness's addresses.
func batchOf(h BatchSenderHarness, tag string, n int) []ports.OutboundMessage {
	msgs := make([]ports.OutboundMessage, n)
	for i := range msgs {
		msgs[i] = ports.OutboundMessage{Envelope: numbered(tag, i), Address: h.Addresses[i%len(h.Addresses)]}
	}
	return msgs
}

// checkArrivals receives as many messages per address as msgs holds for
// it (skipping the indexes in skip) and compares them with what was sent.
func checkArrivals(ctx context.Context, t *testing.T, h BatchSenderHarness, msgs []ports.OutboundMessage, skip map[int]bool) {
	t.Helper()
	want := map[string][]ports.OutboundMessage{}
	for i, m := range msgs {
		if !skip[i] {
			want[m.Address] = append(want[m.Address], m)
		}
	}
	payload := func(m ports.OutboundMessage) []byte { return m.Envelope.PayloadView() }
	for addr, sent := range want {
		got := make([]Received, len(sent))
		for i := range got {
			got[i] = receive(ctx, t, h.Target, addr)
			if got[i].Subject != subject {
				t.Errorf("at %q: subject %q, want %q", addr, got[i].Subject, subject)
			}
			if diff := headerDiff(appHeaders(), got[i].Headers); diff != "" {
				t.Errorf("at %q: headers (-sent +received):\n%s", addr, diff)
			}
		}
		if diff := cmp.Diff(sortedPayloads(sent, payload),
			sortedPayloads(got, func(r Received) []byte { return r.Payload })); diff != "" {
			t.Errorf("at %q: payloads (-sent +received):\n%s", addr, diff)
		}
	}
}

// checkAligned fails unless results has one entry per input, in order.
func checkAligned(t *testing.T, results []ports.BatchResult, n int) {
	t.Helper()
	if len(results) != n {
		t.Fatalf("SendBatch returned %d results for %d messages", len(results), n)
	}
	for i, r := range results {
		if r.Index != i {
			t.Fatalf("results[%d].Index = %d", i, r.Index)
		}
	}
}

func batchResultsAlign(ctx context.Context, t *testing.T, h BatchSenderHarness) {
	msgs := batchOf(h, "batch", 6)
	results, err := h.Sender.SendBatch(ctx, msgs)
	if err != nil {
		t.Fatalf("SendBatch: %v", err)
	}
	checkAligned(t, results, len(msgs))
	for _, r := range results {
		if r.Err != nil {
			t.Errorf("message %d failed: %v", r.Index, r.Err)
		}
	}
	checkArrivals(ctx, t, h, msgs, nil)
}

func batchEmpty(ctx context.Context, t *testing.T, h BatchSenderHarness) {
	for _, msgs := range [][]ports.OutboundMessage{nil, {}} {
		results, err := h.Sender.SendBatch(ctx, msgs)
		if err != nil || len(results) != 0 {
			t.Errorf("SendBatch(%#v) = %v, %v; want no results and no error", msgs, results, err)
		}
	}
}

func batchFailureIsolated(ctx context.Context, t *testing.T, h BatchSenderHarness) {
	if h.Spoil == nil {
		t.Skip("the harness cannot make a single message fail")
	}
	msgs := batchOf(h, "isolated", 5)
	const bad = 2
	msgs[bad] = h.Spoil(msgs[bad])
	results, err := h.Sender.SendBatch(ctx, msgs)
	if err != nil {
		t.Fatalf("SendBatch with one bad message failed as a whole: %v", err)
	}
	checkAligned(t, results, len(msgs))
	for i, r := range results {
		if (r.Err != nil) != (i == bad) {
			t.Errorf("results[%d].Err = %v; only message %d should fail", i, r.Err, bad)
		}
	}
	checkArrivals(ctx, t, h, msgs, map[int]bool{bad: true})
	for _, addr := range h.Addresses {
		expectNothing(ctx, t, h.Target, addr)
	}
}

func batchCancelledContext(ctx context.Context, t *testing.T, h BatchSenderHarness) {
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	msgs := batchOf(h, "cancelled", 3)
	results, err := h.Sender.SendBatch(cancelled, msgs)
	if err != nil {
		if results != nil {
			t.Errorf("SendBatch returned results %v together with the whole-batch error %v", results, err)
		}
		if !fault.IsRecoverable(err) {
			t.Errorf("SendBatch with a cancelled context = %v; it must stay retryable", err)
		}
		return
	}
	checkAligned(t, results, len(msgs))
	for _, r := range results {
		if r.Err == nil {
			t.Errorf("message %d reported as sent with a cancelled context", r.Index)
		} else if !fault.IsRecoverable(r.Err) {
			t.Errorf("message %d: %v; a cancelled send must stay retryable", r.Index, r.Err)
		}
	}
}

func batchAfterClose(ctx context.Context, t *testing.T, h BatchSenderHarness) {
	c, ok := h.Sender.(ports.Closer)
	if !ok {
		t.Skip("the sender does not implement ports.Closer")
	}
	if err := c.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	var (
		results []ports.BatchResult
		err     error
	)
	noPanic(t, "SendBatch after Close", func() { results, err = h.Sender.SendBatch(ctx, batchOf(h, "closed", 2)) })
	if results != nil {
		t.Errorf("SendBatch after Close returned results %v; want nil with a whole-batch error", results)
	}
	checkClosedError(t, "SendBatch after Close", err)
}
