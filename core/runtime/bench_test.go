package runtime_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/routing"
	"github.com/gobridge-oss/gobridge/core/runtime"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// passThrough is the cheapest possible processor.
type passThrough struct{}

func (passThrough) Name() string { return "pass" }
func (passThrough) Process(ctx context.Context, env *messaging.Envelope, next ports.ProcessorFunc) error {
	return next(ctx, env)
}

// jsonPayload1KiB returns a realistic JSON document of about 1 KiB whose
// "priority" field sits near the end.
func jsonPayload1KiB() []byte {
	var b strings.Builder
	b.WriteString(`{"order_id":"ord-000123","customer":{"id":"c-42","name":"Ada Lovelace","tier":"gold"},"items":[`)
	for i := range 8 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"sku":"sku-%04d","qty":%d,"price":%d.99,"tags":["a","b"]}`, i, i+1, 10+i)
	}
	b.WriteString(`],"shipping":{"street":"12 Analytical Engine Way","city":"London","zip":"N1 9GU"},`)
	for b.Len() < 1000 {
		b.WriteString(`"note":"padding to reach a kibibyte of payload",`)
	}
	b.WriteString(`"priority":"high"}`)
	return []byte(b.String())
}

// BenchmarkRouteDirectHold measures one message from the memory receiver
// through a direct_hold route to a discarding memory sender and back to an
// ack. Envelopes are built before the timer starts, so the figures are the
// cost of the memory transport's round trip plus the route.
func BenchmarkRouteDirectHold(b *testing.B) {
	small := []byte(`{"n":1}`)
	big := jsonPayload1KiB()
	procs4 := []ports.Processor{passThrough{}, passThrough{}, passThrough{}, passThrough{}}
	cases := []struct {
		name     string
		payload  []byte
		procs    []ports.Processor
		bindings int
		dispatch runtime.DispatchMode
		rules    bool
		metered  bool
	}{
		{name: "plain", payload: small, bindings: 1},
		{name: "plain_metered", payload: small, bindings: 1, metered: true},
		{name: "processors4", payload: small, procs: procs4, bindings: 1},
		{name: "rules_json1KiB", payload: big, bindings: 2, rules: true},
		{name: "fanout3", payload: small, bindings: 3, dispatch: runtime.FanOut},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			recv := memtransport.NewReceiver(memtransport.Options{NoHistory: true, QueueSize: 4096})
			snd := memtransport.NewSender(memtransport.SenderOptions{Discard: true})
			var bindings []runtime.Binding
			var rb []routing.Binding
			for i := range c.bindings {
				id := fmt.Sprintf("b%d", i)
				bindings = append(bindings, runtime.Binding{ID: id, Sender: snd, Address: "addr-" + id})
				rb = append(rb, routing.Binding{ID: id, Address: "addr-" + id})
			}
			route := runtime.Route{
				ID: "bench", ReceiverID: "mem", Receiver: recv, Processors: c.procs,
				DispatchMode: c.dispatch, Bindings: bindings,
				Policy: runtime.Policy{OnExpired: runtime.Drop, OnPermanentFailure: runtime.Drop},
			}
			if c.rules {
				res, err := routing.NewResolver(routing.ResolverSpec{
					Type: "rules", DefaultBinding: "b1",
					Rules: []routing.Rule{
						{BindingID: "b0", Match: []routing.Condition{{Field: "$.priority", Operator: routing.OpEq, Value: "high"}}},
					},
				}, rb)
				if err != nil {
					b.Fatal(err)
				}
				route.Resolver = res
			}
			opts := runtime.Options{}
			if c.metered {
				opts.Meter = telemetry.NewMemory() // every counter and the latency histogram live
			}
			rt, err := runtime.New([]runtime.Route{route}, opts)
			if err != nil {
				b.Fatal(err)
			}
			// A ring of envelopes is published over and over: the memory
			// receiver hands out a private copy per delivery, so reuse is
			// safe and the heap does not grow with b.N.
			envs := make([]*messaging.Envelope, 1024)
			for i := range envs {
				envs[i] = messaging.NewEnvelopeFromImmutablePayload("orders.created", c.payload)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- rt.Run(ctx) }()

			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if err := recv.Publish(ctx, envs[i%len(envs)]); err != nil {
					b.Fatal(err)
				}
			}
			if err := recv.WaitAcked(ctx, b.N); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			cancel()
			if err := <-done; err != nil {
				b.Fatal(err)
			}
			want := int64(b.N)
			if c.dispatch == runtime.FanOut {
				want *= int64(len(bindings))
			}
			if snd.Count() != want {
				b.Fatalf("sent %d, want %d", snd.Count(), want)
			}
		})
	}
}
