package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"math"
	mrand "math/rand/v2"
	"slices"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/gobridge-oss/gobridge/tools/bench"
	"github.com/gobridge-oss/gobridge/tools/bench/internal/amqpio"
)

// wireVariant is one way of publishing the same messages.
type wireVariant struct {
	name      string
	mandatory bool
	decorate  func(*amqp.Publishing)
}

func randomID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	s := hex.EncodeToString(b[:])
	return s[0:8] + "-" + s[8:12] + "-" + s[12:16] + "-" + s[16:20] + "-" + s[20:32]
}

// wireVariants are the property sets compared. The first is the baseline
// of the ratios.
var wireVariants = []wireVariant{
	{name: "plain"},
	{name: "headers", decorate: func(p *amqp.Publishing) {
		p.Headers = amqp.Table{"gobridge.subject": "", "x-bridge.correlation-id": randomID()}
	}},
	{name: "ids", decorate: func(p *amqp.Publishing) { p.MessageId, p.Timestamp = randomID(), time.Now() }},
	{name: "props", decorate: func(p *amqp.Publishing) {
		p.MessageId, p.Timestamp = randomID(), time.Now()
		p.Headers = amqp.Table{"gobridge.subject": "", "x-bridge.correlation-id": p.MessageId}
	}},
	{name: "mandatory", mandatory: true},
	// One property at a time, to attribute the cost.
	{name: "subject", decorate: func(p *amqp.Publishing) { p.Headers = amqp.Table{"gobridge.subject": ""} }},
	{name: "corr", decorate: func(p *amqp.Publishing) { p.Headers = amqp.Table{"x-bridge.correlation-id": randomID()} }},
	{name: "topic", decorate: func(p *amqp.Publishing) { p.Headers = amqp.Table{"mqtt.topic": "bench/in"} }},
	{name: "id", decorate: func(p *amqp.Publishing) { p.MessageId = randomID() }},
	{name: "ts", decorate: func(p *amqp.Publishing) { p.Timestamp = time.Now() }},
	// What the bridge sends from MQTT: before the empty subject was left
	// out, now, with minimal_headers, and with only the message ID and
	// the topic.
	{name: "props+topic", decorate: func(p *amqp.Publishing) {
		p.MessageId, p.Timestamp = randomID(), time.Now()
		p.Headers = amqp.Table{"gobridge.subject": "", "x-bridge.correlation-id": p.MessageId, "mqtt.topic": "bench/in"}
	}},
	{name: "nosubject+topic", decorate: func(p *amqp.Publishing) {
		p.MessageId, p.Timestamp = randomID(), time.Now()
		p.Headers = amqp.Table{"x-bridge.correlation-id": p.MessageId, "mqtt.topic": "bench/in"}
	}},
	{name: "minhdr+topic", decorate: func(p *amqp.Publishing) {
		p.MessageId, p.Timestamp = randomID(), time.Now()
		p.Headers = amqp.Table{"mqtt.topic": "bench/in"}
	}},
	{name: "id+topic", decorate: func(p *amqp.Publishing) {
		p.MessageId = randomID()
		p.Headers = amqp.Table{"mqtt.topic": "bench/in"}
	}},
}

// wirecostCmd measures what the properties a forwarder puts on each
// message cost the broker alone, without any forwarder: N messages are
// published (through the bench exchange, with confirms) and consumed by
// the sink, once per variant and repetition, and RabbitMQ's CPU per
// message is read around each.
func wirecostCmd(ctx context.Context, args []string) error {
	var ef envFlags
	fs := flag.NewFlagSet("wirecost", flag.ContinueOnError)
	ef.register(fs)
	n := fs.Int("n", 30000, "messages per variant and repetition")
	size := fs.Int("size", 256, "payload bytes")
	reps := fs.Int("reps", 5, "repetitions")
	only := fs.String("variants", "", "comma-separated variants to run (default: all; plain always runs, first)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	variants := []wireVariant{wireVariants[0]}
	for _, v := range wireVariants[1:] {
		if *only == "" || slices.Contains(list(*only), v.name) {
			variants = append(variants, v)
		}
	}
	e, done, err := ef.open(ctx)
	if err != nil {
		return err
	}
	defer done()
	nm := namesFor("amqp-amqp", impl{})
	fmt.Printf("benchrun wirecost: %d × %d B per variant, %d repetitions, load %s\n\n", *n, *size, *reps, bench.LoadAvg())
	per := map[string][]float64{}
	ratios := map[string][]float64{}
	for rep := range *reps {
		base := math.NaN()
		for _, v := range variants {
			if err := amqpio.Prepare(e.amqpURL, amqpio.Topology{Exchange: nm.exchange, Target: nm.dst}); err != nil {
				return err
			}
			run := mrand.Uint64()
			c := bench.NewCounter(run, *n)
			sink, err := amqpio.StartSink(e.amqpURL, nm.dst, c)
			if err != nil {
				return err
			}
			cpu0, _ := bench.ProcCPU(e.rabbitPID)
			err = amqpio.Publish(ctx, e.amqpURL, nm.dst, amqpio.Load{Run: run, N: *n, Size: *size,
				Exchange: nm.exchange, Mandatory: v.mandatory, Decorate: v.decorate})
			if err == nil {
				select {
				case <-c.Done():
				case <-time.After(2 * time.Minute):
					err = fmt.Errorf("%s: only %d of %d arrived", v.name, c.Unique(), *n)
				case <-ctx.Done():
					err = ctx.Err()
				}
			}
			cpu1, _ := bench.ProcCPU(e.rabbitPID)
			_ = sink.Stop()
			if err != nil {
				return err
			}
			us := float64((cpu1 - cpu0).Microseconds()) / float64(*n)
			per[v.name] = append(per[v.name], us)
			if v.name == "plain" {
				base = us
			}
			ratios[v.name] = append(ratios[v.name], bench.Ratio(us, base))
			fmt.Printf("rep %d %-16s RabbitMQ %.1f µs/msg  load %s\n", rep, v.name, us, bench.LoadAvg())
		}
	}
	fmt.Printf("\n| variant | RabbitMQ CPU µs/msg, median (min–max) | ÷ plain, same repetition (median) |\n|---|---:|---:|\n")
	for _, v := range variants {
		lo, hi := bench.Spread(per[v.name])
		fmt.Printf("| %s | %s (%s–%s) | %.2f× |\n", v.name, num(bench.Median(per[v.name])), num(lo), num(hi), bench.Median(ratios[v.name]))
	}
	return nil
}
