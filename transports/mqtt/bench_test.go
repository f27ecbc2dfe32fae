package mqtt

import (
	"context"
	"testing"

	"github.com/eclipse/paho.golang/paho"

	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

// startRuntime runs rt until the benchmark ends.
func startRuntime(b *testing.B, route runtime.Route) {
	b.Helper()
	route.Policy.OnExpired, route.Policy.OnPermanentFailure = runtime.Drop, runtime.Drop
	rt, err := runtime.New([]runtime.Route{route}, runtime.Options{Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- rt.Run(ctx) }()
	b.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			b.Error(err)
		}
	})
}

// BenchmarkReceiveQoS1VsPlain measures MQTT QoS 1 → route → discarding
// memory sender against a plain paho subscriber that only receives (and
// acknowledges) the same messages. Both subscribe to their own topic on
// Mosquitto; one producer publishes 256-byte QoS 1 messages from 32
// goroutines, alternating rounds between the two. b.N messages go to each
// side. CPU is the whole process's (producer included, the same for both).
func BenchmarkReceiveQoS1VsPlain(b *testing.B) {
	requireBroker(b)
	ctx := context.Background()
	base := "gobridge-bench/recv/" + unique()
	plainTopic, bridgeTopic := base+"/plain", base+"/bridge"

	var plainCount counter
	plain := plainClient(b, func(paho.PublishReceived) (bool, error) { plainCount.add(); return true, nil })
	if _, err := plain.Subscribe(testContext(b), &paho.Subscribe{Subscriptions: []paho.SubscribeOptions{{Topic: plainTopic, QoS: 1}}}); err != nil {
		b.Fatal(err)
	}

	s := newSession(b, SessionConfig{ClientID: "bench-recv-" + unique(), SessionExpiry: 60e9})
	recv, err := NewReceiver(s, ReceiverConfig{Subscriptions: []SubscriptionConfig{{Topic: bridgeTopic}}}, WithLogger(quiet))
	if err != nil {
		b.Fatal(err)
	}
	out := memtransport.NewSender(memtransport.SenderOptions{Discard: true})
	startRuntime(b, runtime.Route{ID: "bench", ReceiverID: "mqtt-in", Receiver: recv,
		Bindings: []runtime.Binding{{ID: "mem", Sender: out, Address: "sink"}}})
	waitFor(testContext(b), b, "the bridge subscription", func() bool { return s.Health(ctx).Subscribed })

	producer := plainClient(b, nil)
	var pt, bt tally
	var bridgeDone int64
	round := func(n int) {
		target := plainCount.n.Load() + int64(n)
		pt.measure(n, func() {
			hit := plainCount.expect(target)
			publishPlain(ctx, b, producer, plainTopic, n, 32)
			<-hit
		})
		bridgeDone += int64(n)
		bt.measure(n, func() {
			publishPlain(ctx, b, producer, bridgeTopic, n, 32)
			if err := out.WaitSent(testContext(b), int(bridgeDone)); err != nil {
				b.Fatal(err)
			}
		})
	}
	round(200) // warm up both paths
	pt, bt = tally{}, tally{}
	b.ResetTimer()
	for done := 0; done < b.N; done += benchRound {
		round(min(benchRound, b.N-done))
	}
	b.StopTimer()
	report(b, &pt, &bt)
}

// BenchmarkPublishQoS1VsPlain measures memory source → route → MQTT QoS 1
// publish (each send waits for its PUBACK; the route keeps 100 in flight)
// against a plain paho publisher with 100 goroutines publishing the same
// 256-byte messages, alternating rounds. b.N messages go to each side.
func BenchmarkPublishQoS1VsPlain(b *testing.B) {
	requireBroker(b)
	ctx := context.Background()
	base := "gobridge-bench/pub/" + unique()
	plain := plainClient(b, nil)

	src := memtransport.NewReceiver(memtransport.Options{NoHistory: true, QueueSize: 4 * benchRound})
	s := startSession(b, SessionConfig{})
	snd, err := NewSender(s, SenderConfig{}, WithLogger(quiet))
	if err != nil {
		b.Fatal(err)
	}
	startRuntime(b, runtime.Route{ID: "bench", ReceiverID: "mem-in", Receiver: src,
		Policy:   runtime.Policy{MaxInFlight: 100},
		Bindings: []runtime.Binding{{ID: "mqtt", Sender: snd, Address: base + "/bridge"}}})

	var pt, bt tally
	var acked int
	round := func(n int) {
		pt.measure(n, func() { publishPlain(ctx, b, plain, base+"/plain", n, 100) })
		acked += n
		bt.measure(n, func() {
			for range n {
				if err := src.Publish(ctx, messaging.NewEnvelopeFromImmutablePayload("bench.created", benchPayload)); err != nil {
					b.Fatal(err)
				}
			}
			if err := src.WaitAcked(testContext(b), acked); err != nil {
				b.Fatal(err)
			}
		})
	}
	round(200)
	pt, bt = tally{}, tally{}
	b.ResetTimer()
	for done := 0; done < b.N; done += benchRound {
		round(min(benchRound, b.N-done))
	}
	b.StopTimer()
	report(b, &pt, &bt)
}
