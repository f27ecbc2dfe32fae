package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/gobridge-oss/gobridge/core/itest"
	"github.com/gobridge-oss/gobridge/tools/bench"
	"github.com/gobridge-oss/gobridge/tools/bench/internal/amqp10io"
)

// TestAMQP10ToAMQP10ForwardsEveryMessage runs the reference forwarder
// between two queues of the machine's RabbitMQ over AMQP 1.0 with a small
// window and checks that every message reaches the target once.
func TestAMQP10ToAMQP10ForwardsEveryMessage(t *testing.T) {
	const url = "amqp://guest:guest@127.0.0.1:5672/"
	conn, err := amqp091.Dial(url)
	if err != nil {
		itest.Unavailable(t, "RabbitMQ at %s: %v", url, err)
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	id := rand.Uint64()
	src, dst := fmt.Sprintf("gobridge.bench.test.%d.src", id), fmt.Sprintf("gobridge.bench.test.%d.dst", id)
	for _, q := range []string{src, dst} {
		if _, err := ch.QueueDeclare(q, false, false, false, false, nil); err != nil {
			t.Fatal(err)
		}
		defer ch.QueueDelete(q, false, false, false)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	const n = 400
	run := rand.Uint64()
	if err := amqp10io.Publish(ctx, url, amqp10io.QueueAddress(src), amqp10io.Load{Run: run, N: n, Size: 100}); err != nil {
		itest.Unavailable(t, "AMQP 1.0 on RabbitMQ (scripts/ensure-rabbitmq-amqp10.sh): %v", err)
	}
	c := bench.NewCounter(run, n)
	sink, err := amqp10io.StartSink(ctx, url, amqp10io.QueueAddress(dst), c)
	if err != nil {
		t.Fatal(err)
	}
	fctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- amqp10ToAMQP10(fctx, options{amqpURL: url, src: src, dst: dst, window: 50}, func() {})
	}()
	select {
	case <-c.Done():
	case err := <-done:
		t.Fatalf("forwarder stopped early: %v", err)
	case <-ctx.Done():
		t.Fatalf("%d of %d forwarded", c.Unique(), n)
	}
	stop()
	<-done // a cancelled forwarder returns the context's error, as main expects
	if err := sink.Stop(); err != nil {
		t.Error(err)
	}
	if tl := c.Tally(); tl.Unique != n || tl.Duplicates != 0 || tl.Stray != 0 {
		t.Errorf("tally %+v, want %d unique, no duplicates or strays", tl, n)
	}
}
