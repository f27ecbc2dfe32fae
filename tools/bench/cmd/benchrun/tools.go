package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/gobridge-oss/gobridge/tools/bench"
	"github.com/gobridge-oss/gobridge/tools/bench/internal/amqp10io"
	"github.com/gobridge-oss/gobridge/tools/bench/internal/amqpio"
	"github.com/gobridge-oss/gobridge/tools/bench/internal/httpio"
	"github.com/gobridge-oss/gobridge/tools/bench/internal/mqttio"
	"github.com/gobridge-oss/gobridge/tools/bench/internal/sbio"
	"github.com/gobridge-oss/gobridge/tools/bench/internal/sqsio"
)

// loadgenCmd publishes N stamped messages on its own, for ad-hoc runs
// against any forwarder: to an AMQP queue (default exchange) or an MQTT
// topic at QoS 0, 1 or 2.
func loadgenCmd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("loadgen", flag.ContinueOnError)
	proto := fs.String("proto", "amqp", "amqp, mqtt, sb (Service Bus), amqp10 (AMQP 1.0 to -queue as /amq/queue/NAME on RabbitMQ at -amqp), sqs or http (POST raw bodies to -url)")
	httpURL := fs.String("url", "http://127.0.0.1:8080/publish", "where -proto http posts")
	conc := fs.Int("conc", 100, "-proto http: requests in flight")
	sbConn := fs.String("sb", "", "Service Bus connection string (-proto sb; the queue is -queue)")
	sqsEP := fs.String("sqs", "http://127.0.0.1:4100", "SQS endpoint, Query protocol (-proto sqs; -queue is a queue name or URL)")
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
	case "amqp10":
		err = amqp10io.Publish(ctx, *amqpURL, amqp10io.QueueAddress(*queue), amqp10io.Load{Run: *run, N: *n, Size: *size, Rate: *rate})
	case "http":
		var r httpio.Result
		r, err = httpio.Publish(ctx, *httpURL, httpio.Load{Run: *run, N: *n, Size: *size, Rate: *rate, Concurrency: *conc})
		fmt.Printf("retried requests: %d\n", r.Retries)
	case "sqs":
		err = sqsLoadgen(ctx, *sqsEP, *queue, sqsio.Load{Run: *run, N: *n, Size: *size, Rate: *rate})
	default:
		return fmt.Errorf("-proto %q: amqp, mqtt, sb, amqp10, sqs or http", *proto)
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
	proto := fs.String("proto", "amqp", "amqp, sb (a Service Bus queue, peek-lock, each message completed) or amqp10 (AMQP 1.0 from /amq/queue/NAME, each message accepted)")
	sbConn := fs.String("sb", "", "Service Bus connection string (-proto sb)")
	sqsEP := fs.String("sqs", "http://127.0.0.1:4100", "SQS endpoint, Query protocol (-proto sqs: receive, count and delete; -queue is a name or URL)")
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
	case "amqp10":
		s, err = amqp10io.StartSink(ctx, *amqpURL, amqp10io.QueueAddress(*queue), c)
	case "sqs":
		s, err = sqsSinkStart(ctx, *sqsEP, *queue, c)
	default:
		return fmt.Errorf("-proto %q: amqp, sb, amqp10 or sqs", *proto)
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
