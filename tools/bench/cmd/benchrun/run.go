package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/gobridge-oss/gobridge/tools/bench"
	"github.com/gobridge-oss/gobridge/tools/bench/internal/amqpio"
	"github.com/gobridge-oss/gobridge/tools/bench/internal/mqttio"
)

// result is one measured run.
type result struct {
	Cell        string  `json:"cell"`
	Route       string  `json:"route"`
	Size        int     `json:"size"`
	Window      int     `json:"window"`
	Impl        string  `json:"impl"`
	Rep         int     `json:"rep"`
	N           int     `json:"n"`
	Rate        float64 `json:"msg_per_s"`
	CPUus       float64 `json:"cpu_us_per_msg"`    // the forwarder's own user+system CPU per message
	RSSMB       float64 `json:"peak_rss_mb"`       // VmHWM
	AnonMB      float64 `json:"rss_anon_mb"`       // RssAnon when the last message arrived: heap, stacks
	FileMB      float64 `json:"rss_file_mb"`       // RssFile then: the binary's pages
	RabbitUS    float64 `json:"rabbit_us_per_msg"` // RabbitMQ's CPU per message over the run
	MosqUS      float64 `json:"mosquitto_us_per_msg,omitempty"`
	EmulatorUS  float64 `json:"emulator_us_per_msg,omitempty"` // a broker emulator's CPU per message (sbemu on sb-sb)
	Calls       string  `json:"sqs_calls,omitempty"`           // sqs-sqs with -sqs-count: the forwarder's calls per message, by action
	ReadyMS     float64 `json:"ready_ms"`
	P50ms       float64 `json:"p50_ms"`
	P99ms       float64 `json:"p99_ms"`
	Unique      int     `json:"unique"`
	Dups        int     `json:"duplicates"`
	Missing     int     `json:"missing"`
	Stray       int     `json:"stray"`
	PreloadRate float64 `json:"preload_msg_per_s"`
	Load        string  `json:"loadavg"`
	Wire        string  `json:"wire"`
	Err         string  `json:"error,omitempty"`
}

// runOpts are the settings shared by every run of a matrix.
type runOpts struct {
	n       int
	idle    time.Duration // give up when nothing arrived for this long
	live    bool          // publish while the forwarder runs instead of preloading
	rate    int           // live mode: messages per second (0: as fast as possible)
	timeout time.Duration // a whole run's limit
	// sqsCount puts a call-counting proxy between an SQS forwarder and
	// the emulator.
	sqsCount bool
}

// runOnce measures one forwarder on one cell: preload (or, live, publish
// during) N stamped messages, start the forwarder, wait until the sink has
// every sequence number, read the forwarder's and the brokers' CPU and the
// forwarder's peak RSS, stop it.
func (e *env) runOnce(ctx context.Context, c cell, im impl, rep int, o runOpts) (res result) {
	if open := e.peerOpener(c.route, o); open != nil {
		return e.runPeer(ctx, c, im, rep, o, open)
	}
	res = result{Cell: c.String(), Route: c.route, Size: c.size, Window: c.window, Impl: im.name, Rep: rep, N: o.n}
	fail := func(err error) result { res.Err = err.Error(); return res }
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	n := namesFor(c.route, im)
	run := rand.Uint64()
	dir, err := os.MkdirTemp(e.work, "run-")
	if err != nil {
		return fail(err)
	}
	if err := amqpio.Prepare(e.amqpURL, amqpio.Topology{Source: n.src, Exchange: n.exchange, Target: n.dst}); err != nil {
		return fail(err)
	}
	var mosq *mqttio.Broker
	if c.route == "mqtt-amqp" {
		if mosq, err = e.mosquitto(ctx); err != nil {
			return fail(err)
		}
		// A resumable session keeps receiving between runs: start from a
		// fresh one, subscribed, so the preload queues for the forwarder.
		if err := mqttio.PrepareSession(ctx, mosq.Addr, n.clientID, n.topic, time.Hour); err != nil {
			return fail(err)
		}
	}
	publish := func() error {
		if c.route == "mqtt-amqp" {
			return mqttio.Publish(ctx, mosq.Addr, "gobridge-bench-loadgen", n.topic,
				mqttio.Load{Run: run, N: o.n, Size: c.size, QoS: 1, Rate: o.rate})
		}
		return amqpio.Publish(ctx, e.amqpURL, n.src, amqpio.Load{Run: run, N: o.n, Size: c.size, Rate: o.rate})
	}
	if !o.live {
		if err := res.preload(o.n, publish); err != nil {
			return fail(err)
		}
	}

	counter := bench.NewCounter(run, o.n)
	sink, err := amqpio.StartSink(e.amqpURL, n.dst, counter)
	if err != nil {
		return fail(err)
	}
	defer func() {
		_ = sink.Stop()
		if w, ok := sink.FirstWire(); ok {
			res.Wire = w.String()
		}
	}()

	brokers := []brokerCPU{startBrokerCPU(e.rabbitPID, &res.RabbitUS)}
	if mosq != nil {
		brokers = append(brokers, startBrokerCPU(mosq.PID(), &res.MosqUS))
	}
	p, err := e.startForwarder(ctx, c, im, n, dir, mosq)
	if err != nil {
		return fail(err)
	}
	defer func() {
		if err := p.stop(20 * time.Second); err != nil && res.Err == "" {
			res.Err = "stop: " + err.Error()
		}
	}()
	if o.live {
		join, err := res.startLive(ctx, cancel, p, publish)
		if err != nil {
			return fail(err)
		}
		defer join()
	}
	if err := e.waitDrained(ctx, p, counter, o.idle); err != nil {
		res.Err = err.Error()
	}
	if !o.live {
		res.noteReady(p)
	}
	res.measure(p, counter, brokers...)
	return res
}

// waitDrained waits until the sink has every message, the forwarder
// exits, or nothing arrives for idle.
func (e *env) waitDrained(ctx context.Context, p *fwdProc, counter *bench.Counter, idle time.Duration) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	start := time.Now()
	for {
		select {
		case <-counter.Done():
			return nil
		case <-ctx.Done():
			return fmt.Errorf("run timed out with %d messages", counter.Unique())
		case <-tick.C:
		}
		if err, gone := p.exited(); gone {
			return fmt.Errorf("forwarder exited (%v):\n%s", err, p.tail())
		}
		last := counter.LastArrival()
		if last.IsZero() {
			last = start
		}
		if time.Since(last) > idle {
			return fmt.Errorf("nothing arrived for %v (%d unique so far)", idle, counter.Unique())
		}
	}
}

// startForwarder starts the bridge or the reference forwarder for a run.
func (e *env) startForwarder(ctx context.Context, c cell, im impl, n names, dir string, mosq *mqttio.Broker) (*fwdProc, error) {
	mqttAddr := ""
	if mosq != nil {
		mqttAddr = mosq.Addr
	}
	if im.bridge {
		admin, err := freePort()
		if err != nil {
			return nil, err
		}
		monitor, err := freePort()
		if err != nil {
			return nil, err
		}
		cfg := filepath.Join(dir, "bench.yaml")
		if err := os.WriteFile(cfg, []byte(bridgeConfig(c, im, n, e.amqpURL, mqttAddr, admin, monitor)), 0o600); err != nil {
			return nil, err
		}
		bin := e.bridgeBin
		if im.minimal {
			bin = e.minimalBin
		}
		return startBridge(ctx, bin, cfg, dir, monitor, im.bridgeEnv(e.bridgeEnv))
	}
	args := []string{"-route", c.route, "-amqp", e.amqpURL, "-src", n.src, "-exchange", n.exchange, "-key", n.dst,
		"-window", strconv.Itoa(c.window), "-mqtt", mqttAddr, "-client-id", n.clientID, "-topic", n.topic}
	return startRef(e.fwdBin, append(args, im.fwdArgs()...), dir, e.fwdEnv)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
