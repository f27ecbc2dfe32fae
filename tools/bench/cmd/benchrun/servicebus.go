package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gobridge-oss/gobridge/tools/bench"
	"github.com/gobridge-oss/gobridge/tools/bench/internal/amqpio"
	"github.com/gobridge-oss/gobridge/tools/bench/internal/sbio"
)

// The queues of the Service Bus route, on an emulator of the run's own.
const (
	sbSource = "bench-src"
	sbTarget = "bench-dst"
)

// runSB measures one forwarder on the route sb-sb: a private Service Bus
// emulator per run (queues start empty and the emulator's CPU is the
// run's alone), N stamped messages preloaded (or, live, published while
// the forwarder runs) to its source queue, a peek-lock sink on the target
// queue, and the forwarder between them.
func (e *env) runSB(ctx context.Context, c cell, im impl, rep int, o runOpts) (res result) {
	res = result{Cell: c.String(), Route: c.route, Size: c.size, Window: c.window, Impl: im.name, Rep: rep, N: o.n}
	fail := func(err error) result { res.Err = err.Error(); return res }
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	run := rand.Uint64()
	dir, err := os.MkdirTemp(e.work, "run-")
	if err != nil {
		return fail(err)
	}
	emu, err := sbio.Start(ctx, sbSource, sbTarget)
	if err != nil {
		return fail(err)
	}
	defer func() { _ = emu.Close() }()
	cs := emu.ConnectionString()
	publish := func() error {
		return sbio.Publish(ctx, cs, sbSource, sbio.Load{Run: run, N: o.n, Size: c.size, Rate: o.rate})
	}
	if !o.live {
		t0 := time.Now()
		if err := publish(); err != nil {
			return fail(fmt.Errorf("preload: %w", err))
		}
		res.PreloadRate = float64(o.n) / time.Since(t0).Seconds()
	}
	counter := bench.NewCounter(run, o.n)
	sink, err := sbio.StartSink(cs, sbTarget, counter)
	if err != nil {
		return fail(err)
	}
	defer func() {
		if err := sink.Stop(); err != nil && res.Err == "" {
			res.Err = "sink: " + err.Error()
		}
		if w, ok := sink.FirstWire(); ok {
			res.Wire = w.String()
		}
	}()
	emu0, _ := bench.ProcCPU(emu.PID())
	p, err := e.startSBForwarder(ctx, c, im, cs, dir)
	if err != nil {
		return fail(err)
	}
	defer func() {
		if err := p.stop(20 * time.Second); err != nil && res.Err == "" {
			res.Err = "stop: " + err.Error()
		}
	}()
	if o.live {
		select {
		case d := <-p.ready:
			res.ReadyMS = float64(d.Microseconds()) / 1000
		case <-ctx.Done():
			return fail(fmt.Errorf("not ready: %w\n%s", ctx.Err(), p.tail()))
		}
		go func() {
			if err := publish(); err != nil && ctx.Err() == nil {
				fmt.Fprintln(os.Stderr, "live load generator:", err)
			}
		}()
	}
	if err := e.waitDrained(ctx, p, counter, o.idle); err != nil {
		res.Err = err.Error()
	}
	if !o.live {
		select {
		case d := <-p.ready:
			res.ReadyMS = float64(d.Microseconds()) / 1000
		default:
		}
	}
	cpu, _ := bench.ProcCPU(p.pid())
	hwm, _ := bench.ProcHWM(p.pid())
	anon, _ := bench.ProcStatusKB(p.pid(), "RssAnon")
	file, _ := bench.ProcStatusKB(p.pid(), "RssFile")
	emu1, _ := bench.ProcCPU(emu.PID())
	t := counter.Tally()
	res.Rate = t.Rate()
	res.Unique, res.Dups, res.Missing, res.Stray = t.Unique, t.Duplicates, t.Missing, t.Stray
	res.P50ms, res.P99ms = ms(t.P50), ms(t.P99)
	if t.Unique > 0 {
		res.CPUus = float64(cpu.Microseconds()) / float64(t.Unique)
		res.EmulatorUS = float64((emu1 - emu0).Microseconds()) / float64(t.Unique)
	}
	res.RSSMB = float64(hwm) / (1 << 20)
	res.AnonMB, res.FileMB = float64(anon)/(1<<20), float64(file)/(1<<20)
	res.Load = bench.LoadAvg()
	return res
}

// startSBForwarder starts the bridge or the plain azservicebus forwarder
// between the emulator's two queues.
func (e *env) startSBForwarder(ctx context.Context, c cell, im impl, connStr, dir string) (*fwdProc, error) {
	if !im.bridge {
		args := []string{"-route", c.route, "-sb", connStr, "-src", sbSource, "-dst", sbTarget, "-window", strconv.Itoa(c.window)}
		return startRef(e.fwdBin, args, dir, e.fwdEnv)
	}
	admin, err := freePort()
	if err != nil {
		return nil, err
	}
	monitor, err := freePort()
	if err != nil {
		return nil, err
	}
	cfg := filepath.Join(dir, "bench.yaml")
	if err := os.WriteFile(cfg, []byte(sbBridgeConfig(c, im, connStr, admin, monitor)), 0o600); err != nil {
		return nil, err
	}
	bin := e.bridgeBin
	if im.minimal {
		bin = e.minimalBin
	}
	return startBridge(ctx, bin, cfg, dir, monitor, e.bridgeEnv)
}

// sbBridgeConfig is the gobridge YAML for sb-sb: a Service Bus receiver
// on the source queue and a Service Bus sender to the target queue, a
// direct_hold route with max_in_flight = window between them (the
// receiver asks for as many messages as the window leaves free).
func sbBridgeConfig(c cell, im impl, connStr string, adminPort, monitorPort int) string {
	var b strings.Builder
	b.WriteString("bridge: {id: bench, shutdown_timeout: 5s}\n")
	fmt.Fprintf(&b, "receivers:\n  - {id: in, type: servicebus, settings: {queue: %s, client: {connection_string: %q}}}\n", sbSource, connStr)
	fmt.Fprintf(&b, "senders:\n  - {id: out, type: servicebus, settings: {entity: %s, client: {connection_string: %q}}}\n", sbTarget, connStr)
	fmt.Fprintf(&b, "bindings:\n  - {id: to-dst, sender_id: out, address: %s}\n", sbTarget)
	policy := ""
	if im.noDLQ() {
		policy = ", on_expired: drop, on_permanent_failure: drop, allow_retry_drop: true"
	}
	fmt.Fprintf(&b, "routes:\n  - id: bench\n    receiver_id: in\n    delivery_mode: direct_hold\n    bindings: [to-dst]\n    policy: {max_in_flight: %d%s}\n", c.window, policy)
	if !im.noDLQ() {
		b.WriteString("stores:\n  dlq: {type: sqlite, settings: {path: bench.db}}\n")
	}
	fmt.Fprintf(&b, "http:\n  admin_addr: \"127.0.0.1:%d\"\n  monitor_addr: \"127.0.0.1:%d\"\n  admin_api_key: bench-admin-key-0123456789\n", adminPort, monitorPort)
	return b.String()
}

// sinker is a running sink of either protocol (the sink command's).
type sinker interface{ Stop() error }

// firstWireOf describes the first message a sink received.
func firstWireOf(s sinker) (string, bool) {
	switch s := s.(type) {
	case *amqpio.Sink:
		w, ok := s.FirstWire()
		return w.String(), ok
	case *sbio.Sink:
		w, ok := s.FirstWire()
		return w.String(), ok
	}
	return "", false
}
