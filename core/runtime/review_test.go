package runtime_test

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/clock"
	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// settled waits until n deliveries were acked or retried in total.
func settled(t *testing.T, recv *memtransport.Receiver, n int) memtransport.Stats {
	t.Helper()
	if err := recv.Wait(waitCtx(t), func(s memtransport.Stats) bool { return s.Acked+s.Retried >= n }); err != nil {
		t.Fatalf("waiting for %d settlements: %v (stats %+v)", n, err, recv.Stats())
	}
	return recv.Stats()
}

// panicOnceSender blocks its first Send until the send timeout cancels it
// and then panics; later sends behave like a healthy sender that honours
// its context.
type panicOnceSender struct {
	calls atomic.Int32
	ok    atomic.Int32
}

func (s *panicOnceSender) Send(ctx context.Context, _ ports.OutboundMessage) error {
	if s.calls.Add(1) == 1 {
		<-ctx.Done()
		panic("sender exploded after its timeout")
	}
	if err := ctx.Err(); err != nil {
		return fault.ErrUnavailable.Wrap(err)
	}
	s.ok.Add(1)
	return nil
}

// A sender that panics after the watchdog cancelled its send must not leave
// the worker's send guard cancelled: the next message on the same worker
// has to get a live context. That holds whether the runtime recovers the
// panic or a processor does.
func TestReviewSenderPanicDoesNotPoisonWorker(t *testing.T) {
	recovering := procFunc{"recover", func(ctx context.Context, env *messaging.Envelope, next ports.ProcessorFunc) (err error) {
		defer func() {
			if p := recover(); p != nil {
				err = fault.ErrInternal.WithMessage(fmt.Sprint(p))
			}
		}()
		return next(ctx, env)
	}}
	tests := []struct {
		name    string
		procs   []ports.Processor
		settled func(t *testing.T, recv *memtransport.Receiver, dlq *memDLQ)
	}{
		{"runtime recovers", nil, func(t *testing.T, recv *memtransport.Receiver, dlq *memDLQ) {
			dlq.wait(t, 1) // the panic is a permanent failure
			settled(t, recv, 1)
		}},
		{"processor recovers", []ports.Processor{recovering}, func(t *testing.T, recv *memtransport.Receiver, _ *memDLQ) {
			if err := recv.WaitRetried(waitCtx(t), 1); err != nil { // INTERNAL is transient
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			recv := memtransport.NewReceiver(memtransport.Options{})
			snd := &panicOnceSender{}
			dlq := newMemDLQ()
			start(t, []runtime.Route{{
				ID: "p", Receiver: recv, Bindings: []runtime.Binding{{ID: "b", Sender: snd}}, Processors: tc.procs,
				Policy: runtime.Policy{MaxInFlight: 1, SendTimeout: 20 * time.Millisecond, Backoff: runtime.Backoff{Initial: time.Hour}},
			}}, runtime.Options{DLQ: dlq})

			publish(t, recv, messaging.NewEnvelope("first", nil))
			tc.settled(t, recv, dlq)

			before := recv.Stats()
			publish(t, recv, messaging.NewEnvelope("second", nil))
			if err := recv.WaitAcked(waitCtx(t), before.Acked+1); err != nil {
				t.Fatalf("second message not acked: %v (stats %+v, healthy sends %d)", err, recv.Stats(), snd.ok.Load())
			}
			if st := recv.Stats(); st.Retried != before.Retried || snd.ok.Load() != 1 {
				t.Errorf("stats %+v, healthy sends %d: the second message must be sent once and acked", st, snd.ok.Load())
			}
		})
	}
}

// A processor that panics on the way out after a transient dispatch failure
// makes the message a permanent failure. It must then be dead-lettered;
// acknowledging it with no DLQ entry loses it. The same holds for a sender
// panic, also when a processor recovers it and reports nothing.
func TestReviewPanicAfterFailedDispatchIsDeadLettered(t *testing.T) {
	tests := []struct {
		name     string
		fanOut   bool
		procs    []ports.Processor
		bindings func(fail, boom ports.Sender) []runtime.Binding
	}{
		{
			name: "processor panics on the way out",
			procs: []ports.Processor{procFunc{"late-panic", func(ctx context.Context, env *messaging.Envelope, next ports.ProcessorFunc) error {
				if err := next(ctx, env); err != nil {
					panic("cleanup failed")
				}
				return nil
			}}},
			bindings: func(fail, _ ports.Sender) []runtime.Binding {
				return []runtime.Binding{{ID: "b1", Sender: fail}}
			},
		},
		{
			name:   "second fan-out sender panics",
			fanOut: true,
			bindings: func(fail, boom ports.Sender) []runtime.Binding {
				return []runtime.Binding{{ID: "b1", Sender: fail}, {ID: "b2", Sender: boom}}
			},
		},
		{
			name: "processor swallows a sender panic",
			procs: []ports.Processor{procFunc{"swallow-panic", func(ctx context.Context, env *messaging.Envelope, next ports.ProcessorFunc) (err error) {
				defer func() { _ = recover() }()
				return next(ctx, env)
			}}},
			bindings: func(_, boom ports.Sender) []runtime.Binding {
				return []runtime.Binding{{ID: "b1", Sender: boom}}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			recv := memtransport.NewReceiver(memtransport.Options{})
			fail := memtransport.NewSender(memtransport.SenderOptions{Fail: func(ports.OutboundMessage) error { return fault.ErrConnectionLost }})
			boom := senderFunc(func(context.Context, ports.OutboundMessage) error { panic("sender bug") })
			dlq := newMemDLQ()
			mode := runtime.Single
			if tc.fanOut {
				mode = runtime.FanOut
			}
			start(t, []runtime.Route{{
				ID: "x", Receiver: recv, DispatchMode: mode, Processors: tc.procs, Bindings: tc.bindings(fail, boom),
				Policy: runtime.Policy{Backoff: runtime.Backoff{Initial: time.Hour}},
			}}, runtime.Options{DLQ: dlq})
			publish(t, recv, messaging.NewEnvelope("s", []byte("x")))
			st := settled(t, recv, 1)
			if st.Acked == 1 && len(dlq.all()) == 0 {
				t.Fatalf("message acked with no DLQ entry and never delivered (stats %+v)", st)
			}
		})
	}
}

// senderFunc adapts a function to ports.Sender.
type senderFunc func(context.Context, ports.OutboundMessage) error

func (f senderFunc) Send(ctx context.Context, m ports.OutboundMessage) error { return f(ctx, m) }

// A runtime built some time before it is run must not time out its first
// sends at once: the send timeout counts from the start of the send.
func TestReviewSendTimeoutCountsFromSendStartAfterLateRun(t *testing.T) {
	const timeout = 200 * time.Millisecond
	recv := memtransport.NewReceiver(memtransport.Options{})
	slow := senderFunc(func(ctx context.Context, _ ports.OutboundMessage) error {
		select {
		case <-time.After(timeout / 4): // well inside the timeout
			return nil
		case <-ctx.Done():
			return fault.ErrTimeout.Wrap(ctx.Err())
		}
	})
	rt, err := runtime.New([]runtime.Route{{
		ID: "late", Receiver: recv, Bindings: []runtime.Binding{{ID: "b", Sender: slow}},
		Policy: runtime.Policy{SendTimeout: timeout, Backoff: runtime.Backoff{Initial: time.Hour}},
	}}, runtime.Options{DLQ: newMemDLQ(), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	// The runtime is started well after it was built.
	built := time.Now()
	for time.Since(built) < timeout+timeout/2 {
		<-time.After(timeout / 10)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- rt.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	publish(t, recv, messaging.NewEnvelope("s", nil))
	if st := settled(t, recv, 1); st.Acked != 1 {
		for _, r := range recv.Retried() {
			t.Logf("retried: %v", r.Reason)
		}
		t.Fatalf("stats %+v: a send well inside send_timeout was timed out", st)
	}
}

// A sender error whose class the fault package does not name is an
// unknown error: it is retried like any other, and the other fan-out
// bindings are still sent to.
func TestReviewErrorWithUnknownClassIsRetried(t *testing.T) {
	for _, cl := range []fault.Class{0, 42} {
		t.Run(cl.String()+fmt.Sprint(uint8(cl)), func(t *testing.T) {
			recv := memtransport.NewReceiver(memtransport.Options{})
			odd := memtransport.NewSender(memtransport.SenderOptions{Fail: func(ports.OutboundMessage) error {
				return fault.NewWithClass(cl, "PLUGIN_ODD", "plugin error with an odd class")
			}})
			good := memtransport.NewSender(memtransport.SenderOptions{})
			dlq := newMemDLQ()
			start(t, []runtime.Route{{
				ID: "u", Receiver: recv, DispatchMode: runtime.FanOut,
				Bindings: []runtime.Binding{{ID: "odd", Sender: odd}, {ID: "good", Sender: good}},
				Policy:   runtime.Policy{Backoff: runtime.Backoff{Initial: time.Hour}},
			}}, runtime.Options{DLQ: dlq})
			publish(t, recv, messaging.NewEnvelope("s", nil))
			st := settled(t, recv, 1)
			if st.Retried != 1 || len(dlq.all()) != 0 || good.Count() != 1 {
				t.Errorf("stats %+v, DLQ %d, good binding sent %d: want retried, no DLQ, good binding sent once",
					st, len(dlq.all()), good.Count())
			}
		})
	}
}

// flakyOnce fails the first Send for each address in fail with a transient
// error and accepts everything else.
func flakyOnce(fail ...string) *memtransport.Sender {
	var mu sync.Mutex
	failed := map[string]bool{}
	return memtransport.NewSender(memtransport.SenderOptions{Fail: func(m ports.OutboundMessage) error {
		mu.Lock()
		defer mu.Unlock()
		for _, a := range fail {
			if m.Address == a && !failed[a] {
				failed[a] = true
				return fault.ErrConnectionLost
			}
		}
		return nil
	}})
}

func payloads(s *memtransport.Sender) []string {
	var out []string
	for _, m := range s.Sent() {
		out = append(out, m.Address+":"+string(m.Envelope.PayloadView()))
	}
	return out
}

// Messages without an ID must not share the fan-out memory of "bindings
// that already accepted": a second, different message would skip them.
func TestReviewFanOutMessagesWithoutID(t *testing.T) {
	fc := clock.NewFake(t0)
	recv := memtransport.NewReceiver(memtransport.Options{Clock: fc})
	b1 := memtransport.NewSender(memtransport.SenderOptions{})
	b2 := flakyOnce("a2")
	start(t, []runtime.Route{{
		ID: "noid", Receiver: recv, DispatchMode: runtime.FanOut,
		Bindings: []runtime.Binding{{ID: "b1", Sender: b1, Address: "a1"}, {ID: "b2", Sender: b2, Address: "a2"}},
		Policy:   runtime.Policy{Backoff: runtime.Backoff{Initial: time.Hour, Jitter: ptr(0.0)}},
	}}, runtime.Options{Clock: fc, DLQ: newMemDLQ()})

	a := messaging.NewEnvelope("s", []byte("A"))
	a.ID = ""
	publish(t, recv, a)
	settled(t, recv, 1) // b1 accepted A, b2 failed: A waits an hour

	b := messaging.NewEnvelope("s", []byte("B"))
	b.ID = ""
	publish(t, recv, b)
	if err := recv.WaitAcked(waitCtx(t), 1); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a1:A", "a1:B"}, payloads(b1)); diff != "" {
		t.Errorf("b1 received (-want +got):\n%s", diff)
	}
}

// planResolver returns fixed plans.
type planResolver []ports.DispatchPlan

func (p planResolver) Resolve(context.Context, *messaging.Envelope) ([]ports.DispatchPlan, error) {
	return p, nil
}

// A resolver may send one message to two addresses of the same binding.
// When only one of them accepted, the redelivery must still reach the
// other.
func TestReviewFanOutSameBindingTwoAddresses(t *testing.T) {
	fc := clock.NewFake(t0)
	recv := memtransport.NewReceiver(memtransport.Options{Clock: fc})
	snd := flakyOnce("y")
	start(t, []runtime.Route{{
		ID: "two", Receiver: recv, DispatchMode: runtime.FanOut,
		Bindings: []runtime.Binding{{ID: "b", Sender: snd}},
		Resolver: planResolver{{BindingID: "b", Address: "x"}, {BindingID: "b", Address: "y"}},
		Policy:   runtime.Policy{Backoff: runtime.Backoff{Initial: time.Second, Jitter: ptr(0.0)}},
	}}, runtime.Options{Clock: fc, DLQ: newMemDLQ()})

	publish(t, recv, messaging.NewEnvelope("s", []byte("m")))
	if err := recv.WaitRetried(waitCtx(t), 1); err != nil {
		t.Fatal(err)
	}
	fc.Advance(time.Second)
	if err := recv.WaitAcked(waitCtx(t), 1); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"x:m", "y:m"}, payloads(snd)); diff != "" {
		t.Errorf("sent (-want +got):\n%s", diff)
	}
}

// The route's own attempt count must follow the message as received, not
// an ID a processor assigned to the outbound copy; otherwise the backoff
// never grows and the message is never poisoned.
func TestReviewAttemptsFollowReceivedID(t *testing.T) {
	fc := clock.NewFake(t0)
	recv := memtransport.NewReceiver(memtransport.Options{Clock: fc})
	snd := memtransport.NewSender(memtransport.SenderOptions{Fail: func(ports.OutboundMessage) error { return fault.ErrBrokerBusy }})
	newID := procFunc{"new-id", func(ctx context.Context, env *messaging.Envelope, next ports.ProcessorFunc) error {
		env.Headers["x-causation"] = env.ID
		env.ID = messaging.NewID() // every hop mints its own message ID
		return next(ctx, env)
	}}
	start(t, []runtime.Route{{
		ID: "ids", Receiver: recv, Processors: []ports.Processor{newID},
		Bindings: []runtime.Binding{{ID: "b", Sender: snd}},
		Policy:   runtime.Policy{Backoff: runtime.Backoff{Initial: time.Second, Max: time.Minute, Multiplier: 2, Jitter: ptr(0.0)}},
	}}, runtime.Options{Clock: fc, DLQ: newMemDLQ()})

	publish(t, recv, messaging.NewEnvelope("s", nil))
	var got []time.Duration
	for n := 1; n <= 3; n++ {
		if err := recv.WaitRetried(waitCtx(t), n); err != nil {
			t.Fatal(err)
		}
		r := recv.Retried()[n-1]
		got = append(got, r.After)
		fc.Advance(r.After)
	}
	if diff := cmp.Diff([]time.Duration{time.Second, 2 * time.Second, 4 * time.Second}, got); diff != "" {
		t.Errorf("retry delays (-want +got):\n%s", diff)
	}
}

// valueCloser is a sender used by value whose dynamic contents cannot be a
// map key: an interface field holding a func.
type valueCloser struct {
	hook   any
	closed *atomic.Int32
}

func (v valueCloser) Send(context.Context, ports.OutboundMessage) error { return nil }
func (v valueCloser) Close(context.Context) error                       { v.closed.Add(1); return nil }

// Closing senders at shutdown must not panic on a sender value whose type
// is comparable but whose contents are not.
func TestReviewShutdownClosesUnhashableSender(t *testing.T) {
	var closed atomic.Int32
	snd := valueCloser{hook: func() {}, closed: &closed}
	rt, err := runtime.New([]runtime.Route{{
		ID: "c", Receiver: memtransport.NewReceiver(memtransport.Options{}),
		Bindings: []runtime.Binding{{ID: "b", Sender: snd}},
	}}, runtime.Options{DLQ: newMemDLQ(), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		_ = rt.Run(ctx)
	}()
	cancel()
	select {
	case p := <-done:
		if p != nil {
			t.Fatalf("Run panicked at shutdown: %v", p)
		}
	case <-waitCtx(t).Done():
		t.Fatal("Run did not return")
	}
	if closed.Load() != 1 {
		t.Errorf("sender closed %d times, want 1", closed.Load())
	}
}

// When the DLQ refuses a fan-out message and it is handed back to its
// source, the bindings that already accepted it are not sent to again.
func TestReviewRequeueRemembersFanOutAcceptances(t *testing.T) {
	fc := clock.NewFake(t0)
	recv := memtransport.NewReceiver(memtransport.Options{Clock: fc})
	ok := memtransport.NewSender(memtransport.SenderOptions{})
	bad := memtransport.NewSender(memtransport.SenderOptions{Fail: func(ports.OutboundMessage) error { return fault.ErrForbidden }})
	dlq := newMemDLQ()
	dlq.setFail(fault.ErrUnavailable)
	start(t, []runtime.Route{{
		ID: "rq", Receiver: recv, DispatchMode: runtime.FanOut,
		Bindings: []runtime.Binding{{ID: "ok", Sender: ok}, {ID: "bad", Sender: bad}},
		Policy:   runtime.Policy{Backoff: runtime.Backoff{Initial: time.Second, Jitter: ptr(0.0)}},
	}}, runtime.Options{Clock: fc, DLQ: dlq})
	publish(t, recv, messaging.NewEnvelope("s", nil))
	if err := recv.WaitRetried(waitCtx(t), 1); err != nil {
		t.Fatal(err)
	}
	dlq.setFail(nil)
	fc.Advance(time.Second)
	if err := recv.WaitAcked(waitCtx(t), 1); err != nil {
		t.Fatal(err)
	}
	if es := dlq.all(); len(es) != 1 || es[0].BindingID != "bad" {
		t.Errorf("DLQ entries %+v, want one for binding bad", es)
	}
	if n := ok.Count(); n != 1 {
		t.Errorf("binding ok was sent the message %d times, want once", n)
	}
}

// NaN is not a valid jitter or multiplier.
func TestReviewNewRejectsNaNBackoff(t *testing.T) {
	nan := math.NaN()
	for _, b := range []runtime.Backoff{{Jitter: &nan}, {Multiplier: nan}} {
		_, err := runtime.New([]runtime.Route{{
			ID: "n", Receiver: memtransport.NewReceiver(memtransport.Options{}),
			Bindings: []runtime.Binding{{ID: "b", Sender: memtransport.NewSender(memtransport.SenderOptions{})}},
			Policy:   runtime.Policy{Backoff: b},
		}}, runtime.Options{DLQ: newMemDLQ()})
		if err == nil || !strings.Contains(err.Error(), "policy.backoff.") {
			t.Errorf("New with backoff %+v (jitter %v) = %v, want a policy.backoff error", b, b.Jitter, err)
		}
	}
}

// The poison entry of a fan-out message names the destination whose
// transient failure kept it retrying, not merely the first that failed.
func TestReviewPoisonEntryNamesTheRetriedBinding(t *testing.T) {
	fc := clock.NewFake(t0)
	recv := memtransport.NewReceiver(memtransport.Options{Clock: fc})
	denied := memtransport.NewSender(memtransport.SenderOptions{Fail: func(ports.OutboundMessage) error { return fault.ErrForbidden }})
	busy := memtransport.NewSender(memtransport.SenderOptions{Fail: func(ports.OutboundMessage) error { return fault.ErrBrokerBusy }})
	dlq := newMemDLQ()
	start(t, []runtime.Route{{
		ID: "pz", Receiver: recv, DispatchMode: runtime.FanOut,
		Bindings: []runtime.Binding{{ID: "denied", Sender: denied, Address: "d"}, {ID: "busy", Sender: busy, Address: "b"}},
		Policy: runtime.Policy{
			MaxReplayAttempts: 1, ReplayBudget: time.Second,
			Backoff: runtime.Backoff{Initial: time.Second, Jitter: ptr(0.0)},
		},
	}}, runtime.Options{Clock: fc, DLQ: dlq})
	publish(t, recv, messaging.NewEnvelope("s", nil))
	if err := recv.WaitRetried(waitCtx(t), 1); err != nil {
		t.Fatal(err)
	}
	fc.Advance(time.Second) // the budget is spent: the next failure is poison
	es := dlq.wait(t, 1)
	got := []string{string(es[0].Category), es[0].BindingID, es[0].Address, es[0].ErrorCode}
	if diff := cmp.Diff([]string{"max_retries", "busy", "b", "POISON_MESSAGE"}, got); diff != "" {
		t.Errorf("poison entry (-want +got):\n%s", diff)
	}
	if !strings.Contains(es[0].ErrorMessage, string(fault.CodeBrokerBusy)) {
		t.Errorf("poison entry message %q does not carry the transient cause", es[0].ErrorMessage)
	}
}

// scriptedDelivery is one hand-over of a message whose source counts
// redeliveries and may abandon it; its settlement is reported on outcome.
type scriptedDelivery struct {
	env       *messaging.Envelope
	count     int
	abandoned chan struct{}
	outcome   chan string
}

func (d *scriptedDelivery) Envelope() *messaging.Envelope           { return d.env }
func (d *scriptedDelivery) RedeliveryCount() (int, bool)            { return d.count, true }
func (d *scriptedDelivery) Abandoned() <-chan struct{}              { return d.abandoned }
func (d *scriptedDelivery) Extend(context.Context, time.Time) error { return nil }
func (d *scriptedDelivery) Ack(context.Context) error               { d.outcome <- "ack"; return nil }
func (d *scriptedDelivery) Retry(context.Context, time.Duration, error) error {
	d.outcome <- "retry"
	return nil
}

// chanReceiver emits every delivery sent on it until ctx ends.
type chanReceiver chan ports.Delivery

func (c chanReceiver) Run(ctx context.Context, emit ports.EmitFunc) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case d := <-c:
			if err := emit(ctx, d); err != nil {
				return err
			}
		}
	}
}

// Deliveries the bridge abandoned (here: the source gave up on them) do not
// spend the replay budget, even though the source counted them as
// redeliveries: only failures of the message itself move it towards the
// poison gate.
func TestReviewAbandonedDeliveriesDoNotSpendReplayBudget(t *testing.T) {
	fc := clock.NewFake(t0)
	meter := telemetry.NewMemory()
	in := make(chanReceiver)
	snd := senderFunc(func(ctx context.Context, m ports.OutboundMessage) error {
		if _, ok := m.Envelope.Headers["block"]; ok {
			<-ctx.Done()
			return fault.ErrTimeout.Wrap(ctx.Err())
		}
		return fault.ErrBrokerBusy
	})
	dlq := newMemDLQ()
	start(t, []runtime.Route{{
		ID: "ab", Receiver: in, Bindings: []runtime.Binding{{ID: "b", Sender: snd}},
		Policy: runtime.Policy{
			MaxReplayAttempts: 3, ReplayBudget: 10 * time.Second,
			Backoff: runtime.Backoff{Initial: time.Second, Multiplier: 1, Jitter: ptr(0.0)},
		},
	}}, runtime.Options{Clock: fc, DLQ: dlq, Meter: meter})

	deliver := func(count int, abandon bool) *scriptedDelivery {
		env := messaging.NewEnvelope("s", nil)
		env.ID = "same-message"
		d := &scriptedDelivery{env: env, count: count, abandoned: make(chan struct{}), outcome: make(chan string, 1)}
		if abandon {
			env.Headers["block"] = true
			close(d.abandoned)
		}
		select {
		case in <- d:
		case <-waitCtx(t).Done():
			t.Fatal("delivery not taken")
		}
		return d
	}
	outcome := func(d *scriptedDelivery) string {
		select {
		case o := <-d.outcome:
			return o
		case <-waitCtx(t).Done():
			t.Fatal("delivery not settled")
			return ""
		}
	}
	waitUnsettled := func(n float64) {
		ctx := waitCtx(t)
		for meter.Value("gobridge_route_messages_unsettled_total", "ab") < n {
			select {
			case <-ctx.Done():
				t.Fatalf("delivery %v not abandoned", n)
			case <-time.After(time.Millisecond):
			}
		}
	}

	if o := outcome(deliver(0, false)); o != "retry" { // failure 1
		t.Fatalf("first failure settled with %s", o)
	}
	deliver(1, true) // the source gave up twice; the bridge learned nothing
	waitUnsettled(1)
	deliver(2, true)
	waitUnsettled(2)
	fc.Advance(10 * time.Second) // the budget's age half is spent

	if o := outcome(deliver(3, false)); o != "retry" || len(dlq.all()) != 0 { // failure 2 of 3
		t.Errorf("second failure settled with %s and %d DLQ entries; want a retry: only 2 of 3 attempts failed", o, len(dlq.all()))
	}
}
