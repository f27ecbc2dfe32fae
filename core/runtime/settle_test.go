package runtime_test

import (
	"context"
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

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// outcome is what a test observes after one message was settled.
type outcome struct {
	Sent     int
	Acked    int
	Retries  []time.Duration
	DLQ      []string // category/code/binding
	Dropped  map[string]float64
	Unsettle int
}

func filterAll(_ context.Context, _ *messaging.Envelope, _ ports.ProcessorFunc) error {
	return fault.ErrMessageFiltered
}

func TestSettlement(t *testing.T) {
	noJitter := runtime.Backoff{Initial: time.Second, Max: 8 * time.Second, Multiplier: 2, Jitter: ptr(0.0)}
	tests := []struct {
		name      string
		policy    runtime.Policy
		noDLQ     bool
		recv      memtransport.Options
		procs     []ports.Processor
		fail      error
		expired   bool
		want      outcome
		wantCodes []string
	}{
		{
			name: "success acks",
			want: outcome{Sent: 1, Acked: 1},
		},
		{
			name: "transient send error retries after initial backoff",
			fail: fault.ErrConnectionLost,
			want: outcome{Retries: []time.Duration{time.Second}},
		},
		{
			name: "retry-after hint wins when larger",
			fail: fault.ErrThrottled.WithRetryAfter(5 * time.Second),
			want: outcome{Retries: []time.Duration{5 * time.Second}},
		},
		{
			name: "unknown error is retried",
			fail: errBoom,
			want: outcome{Retries: []time.Duration{time.Second}},
		},
		{
			name: "permanent send error goes to DLQ then ack",
			fail: fault.ErrForbidden,
			want: outcome{Acked: 1, DLQ: []string{"permanent/FORBIDDEN/b1"}},
		},
		{
			name:   "permanent with drop policy is dropped",
			fail:   fault.ErrNotFound,
			policy: runtime.Policy{OnPermanentFailure: runtime.Drop},
			want:   outcome{Acked: 1, Dropped: map[string]float64{"permanent": 1}},
		},
		{
			name: "rejected is dropped and acked",
			fail: fault.ErrPayloadTooLarge,
			want: outcome{Acked: 1, Dropped: map[string]float64{"rejected": 1}},
		},
		{
			name:  "filtered drops by default",
			procs: []ports.Processor{procFunc{"f", filterAll}},
			want:  outcome{Acked: 1, Dropped: map[string]float64{"filtered": 1}},
		},
		{
			name:   "filtered to DLQ when asked",
			procs:  []ports.Processor{procFunc{"f", filterAll}},
			policy: runtime.Policy{OnFiltered: runtime.DLQ},
			want:   outcome{Acked: 1, DLQ: []string{"filtered/MESSAGE_FILTERED/"}},
		},
		{
			name:    "expired goes to DLQ by default",
			expired: true,
			want:    outcome{Acked: 1, DLQ: []string{"expired/MESSAGE_EXPIRED/"}},
		},
		{
			name:    "expired dropped when asked",
			expired: true,
			policy:  runtime.Policy{OnExpired: runtime.Drop},
			want:    outcome{Acked: 1, Dropped: map[string]float64{"expired": 1}},
		},
		{
			name: "retry unsupported goes to DLQ",
			recv: memtransport.Options{NoRetry: true},
			fail: fault.ErrTimeout,
			want: outcome{Acked: 1, DLQ: []string{"retry_unsupported/TIMEOUT/b1"}},
		},
		{
			name:   "retry unsupported without DLQ is dropped when allowed",
			recv:   memtransport.Options{NoRetry: true},
			noDLQ:  true,
			policy: runtime.Policy{AllowRetryDrop: true, OnExpired: runtime.Drop, OnPermanentFailure: runtime.Drop},
			fail:   fault.ErrTimeout,
			want:   outcome{Acked: 1, Dropped: map[string]float64{"retry_unsupported": 1}},
		},
		{
			name: "processor rejecting the message drops it",
			procs: []ports.Processor{procFunc{"bad", func(context.Context, *messaging.Envelope, ports.ProcessorFunc) error {
				return fault.ErrSchemaViolation.WithMessage("nope").Wrap(errBoom)
			}}},
			want: outcome{Acked: 1, Dropped: map[string]float64{"rejected": 1}},
		},
		{
			name: "panicking processor is a permanent failure",
			procs: []ports.Processor{procFunc{"panics", func(context.Context, *messaging.Envelope, ports.ProcessorFunc) error {
				panic("bad processor")
			}}},
			want: outcome{Acked: 1, DLQ: []string{"permanent/INTERNAL/"}},
		},
		{
			name: "processor that does not call next still dispatches",
			procs: []ports.Processor{procFunc{"stop", func(context.Context, *messaging.Envelope, ports.ProcessorFunc) error {
				return nil
			}}},
			want: outcome{Sent: 1, Acked: 1},
		},
		{
			name: "processor error after a successful send is acked",
			procs: []ports.Processor{procFunc{"late", func(ctx context.Context, env *messaging.Envelope, next ports.ProcessorFunc) error {
				if err := next(ctx, env); err != nil {
					return err
				}
				return fault.ErrInvalidPayload
			}}},
			want: outcome{Sent: 1, Acked: 1},
		},
		{
			name: "processor swallowing a send error does not hide it",
			fail: fault.ErrConnectionLost,
			procs: []ports.Processor{procFunc{"swallow", func(ctx context.Context, env *messaging.Envelope, next ports.ProcessorFunc) error {
				_ = next(ctx, env)
				return nil
			}}},
			want: outcome{Retries: []time.Duration{time.Second}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fc := clock.NewFake(t0)
			tc.recv.Clock = fc
			recv := memtransport.NewReceiver(tc.recv)
			failErr := tc.fail
			snd := memtransport.NewSender(memtransport.SenderOptions{Fail: func(ports.OutboundMessage) error { return failErr }})
			meter := telemetry.NewMemory()
			var dlq *memDLQ
			opts := runtime.Options{Clock: fc, Meter: meter}
			if !tc.noDLQ {
				dlq = newMemDLQ()
				opts.DLQ = dlq
			}
			pol := tc.policy
			pol.Backoff = noJitter
			start(t, []runtime.Route{{
				ID: "r1", ReceiverID: "in", Receiver: recv, Policy: pol, Processors: tc.procs,
				Bindings: []runtime.Binding{{ID: "b1", SenderID: "out", Sender: snd, Address: "dest"}},
			}}, opts)

			env := messaging.NewEnvelope("orders.created", []byte(`{"n":1}`))
			if tc.expired {
				env.ExpiresAt = t0.Add(-time.Second)
			}
			publish(t, recv, env)
			if err := recv.Wait(waitCtx(t), func(s memtransport.Stats) bool { return s.Acked+s.Retried >= 1 }); err != nil {
				t.Fatalf("message not settled: %v (stats %+v)", err, recv.Stats())
			}

			got := outcome{Sent: len(snd.Sent()), Acked: len(recv.Acked())}
			for _, r := range recv.Retried() {
				got.Retries = append(got.Retries, r.After)
			}
			if dlq != nil {
				for _, e := range dlq.all() {
					got.DLQ = append(got.DLQ, string(e.Category)+"/"+e.ErrorCode+"/"+e.BindingID)
					if e.Envelope.Subject != "orders.created" || e.RouteID != "r1" {
						t.Errorf("DLQ entry lost context: subject %q route %q", e.Envelope.Subject, e.RouteID)
					}
				}
			}
			for _, reason := range []string{"filtered", "rejected", "expired", "permanent", "retry_unsupported", "poison"} {
				if v := meter.Value("gobridge_route_messages_dropped_total", "r1", reason); v != 0 {
					if got.Dropped == nil {
						got.Dropped = map[string]float64{}
					}
					got.Dropped[reason] = v
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("outcome (-want +got):\n%s", diff)
			}
			if n := recv.DoubleSettlements(); n != 0 {
				t.Errorf("%d deliveries settled twice", n)
			}
		})
	}
}
