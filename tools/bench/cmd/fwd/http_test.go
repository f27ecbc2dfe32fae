package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"testing"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/gobridge-oss/gobridge/core/itest"
	"github.com/gobridge-oss/gobridge/tools/bench"
	"github.com/gobridge-oss/gobridge/tools/bench/internal/amqpio"
	"github.com/gobridge-oss/gobridge/tools/bench/internal/httpio"
)

// TestHTTPToAMQPForwardsEveryMessage posts stamped messages to the
// reference HTTP forwarder and checks that each reached the target queue
// of the machine's RabbitMQ once, every request being answered only after
// the confirm (so the sink has them all once the load generator returns,
// give or take the queue's delivery).
func TestHTTPToAMQPForwardsEveryMessage(t *testing.T) {
	const url = "amqp://guest:guest@127.0.0.1:5672/"
	conn, err := amqp091.Dial(url)
	if err != nil {
		itest.Unavailable(t, "RabbitMQ at %s: %v", url, err)
	}
	defer conn.Close()
	id := rand.Uint64()
	ex, dst := fmt.Sprintf("gobridge.bench.test.%d", id), fmt.Sprintf("gobridge.bench.test.%d.dst", id)
	if err := amqpio.Prepare(url, amqpio.Topology{Exchange: ex, Target: dst}); err != nil {
		t.Fatal(err)
	}
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	defer ch.ExchangeDelete(ex, false, false)
	defer ch.QueueDelete(dst, false, false, false)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	const n = 400
	run := rand.Uint64()
	c := bench.NewCounter(run, n)
	sink, err := amqpio.StartSink(url, dst, c)
	if err != nil {
		t.Fatal(err)
	}
	fctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	ready := make(chan struct{})
	go func() {
		done <- httpToAMQP(fctx, options{amqpURL: url, listen: addr, exchange: ex, key: dst}, func() { close(ready) })
	}()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("forwarder stopped early: %v", err)
	}
	if _, err := httpio.Publish(ctx, "http://"+addr+"/publish", httpio.Load{Run: run, N: n, Size: 100, Concurrency: 20}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.Done():
	case <-ctx.Done():
		t.Fatalf("%d of %d forwarded", c.Unique(), n)
	}
	stop()
	if err := <-done; err != nil {
		t.Errorf("forwarder: %v", err)
	}
	if err := sink.Stop(); err != nil {
		t.Error(err)
	}
	if tl := c.Tally(); tl.Unique != n || tl.Duplicates != 0 || tl.Stray != 0 {
		t.Errorf("tally %+v, want %d unique, no duplicates or strays", tl, n)
	}
}
