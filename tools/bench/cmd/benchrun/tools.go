package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/gobridge-oss/gobridge/tools/bench"
	"github.com/gobridge-oss/gobridge/tools/bench/internal/amqpio"
	"github.com/gobridge-oss/gobridge/tools/bench/internal/mqttio"
	"github.com/gobridge-oss/gobridge/tools/bench/internal/sbio"
)

// loadgenCmd publishes N stamped messages on its own, for ad-hoc runs
// against any forwarder: to an AMQP queue (default exchange) or an MQTT
// topic at QoS 0, 1 or 2.
func loadgenCmd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("loadgen", flag.ContinueOnError)
	proto := fs.String("proto", "amqp", "amqp, mqtt or sb (Service Bus)")
	sbConn := fs.String("sb", "", "Service Bus connection string (-proto sb; the queue is -queue)")
	amqpURL := fs.String("amqp", "amqp://guest:guest@127.0.0.1:5672/", "RabbitMQ URL")
	queue := fs.String("queue", "gobridge.bench.src", "AMQP queue (routing key on the default exchange)")
	mqttAddr := fs.String("mqtt", "127.0.0.1:1883", "MQTT broker host:port")
	topic := fs.String("topic", "bench/in", "MQTT topic")
	qos := fs.Int("qos", 1, "MQTT QoS 0, 1 or 2")
	n := fs.Int("n", 100000, "messages")
	size := fs.Int("size", 256, "payload bytes")
	rate := fs.Int("rate", 0, "messages per second (0: as fast as possible)")
	run := fs.Uint64("run", 0, "run ID stamped into the payloads (default: random, printed)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *run == 0 {
		*run = rand.Uint64()
	}
	t0 := time.Now()
	var err error
	switch *proto {
	case "amqp":
		err = amqpio.Publish(ctx, *amqpURL, *queue, amqpio.Load{Run: *run, N: *n, Size: *size, Rate: *rate})
	case "mqtt":
		if *qos < 0 || *qos > 2 {
			return fmt.Errorf("-qos %d: must be 0, 1 or 2", *qos)
		}
		err = mqttio.Publish(ctx, *mqttAddr, fmt.Sprintf("gobridge-bench-loadgen-%d", *run%1000), *topic,
			mqttio.Load{Run: *run, N: *n, Size: *size, QoS: byte(*qos), Rate: *rate})
	case "sb":
		err = sbio.Publish(ctx, *sbConn, *queue, sbio.Load{Run: *run, N: *n, Size: *size, Rate: *rate})
	default:
		return fmt.Errorf("-proto %q: amqp, mqtt or sb", *proto)
	}
	if err != nil {
		return err
	}
	el := time.Since(t0)
	fmt.Printf("run %d: %d × %d B in %v (%.0f msg/s)\n", *run, *n, *size, el.Round(time.Millisecond), float64(*n)/el.Seconds())
	return nil
}

// sinkCmd counts stamped messages of one run arriving on an AMQP queue
// until every one arrived or none arrived for -idle.
func sinkCmd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("sink", flag.ContinueOnError)
	amqpURL := fs.String("amqp", "amqp://guest:guest@127.0.0.1:5672/", "RabbitMQ URL")
	queue := fs.String("queue", "gobridge.bench.dst", "AMQP queue to consume")
	proto := fs.String("proto", "amqp", "amqp, or sb (a Service Bus queue, peek-lock, each message completed)")
	sbConn := fs.String("sb", "", "Service Bus connection string (-proto sb)")
	n := fs.Int("n", 100000, "messages in the run")
	run := fs.Uint64("run", 0, "run ID (as printed by loadgen)")
	idle := fs.Duration("idle", 10*time.Second, "stop when nothing arrived for this long")
	if err := fs.Parse(args); err != nil {
		return err
	}
	c := bench.NewCounter(*run, *n)
	var s sinker
	var err error
	switch *proto {
	case "amqp":
		s, err = amqpio.StartSink(*amqpURL, *queue, c)
	case "sb":
		s, err = sbio.StartSink(*sbConn, *queue, c)
	default:
		return fmt.Errorf("-proto %q: amqp or sb", *proto)
	}
	if err != nil {
		return err
	}
	start := time.Now()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
wait:
	for {
		select {
		case <-c.Done():
			break wait
		case <-ctx.Done():
			break wait
		case <-tick.C:
			last := c.LastArrival()
			if last.IsZero() {
				last = start
			}
			if time.Since(last) > *idle {
				break wait
			}
		}
	}
	stopErr := s.Stop()
	t := c.Tally()
	fmt.Printf("unique %d, duplicates %d, missing %d, stray %d, %.0f msg/s, latency p50 %v p99 %v\n",
		t.Unique, t.Duplicates, t.Missing, t.Stray, t.Rate(), t.P50, t.P99)
	if w, ok := firstWireOf(s); ok {
		fmt.Println("first message:", w)
	}
	return stopErr
}
