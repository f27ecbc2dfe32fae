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
	"github.com/gobridge-oss/gobridge/tools/bench/internal/sqsio"
)

// The queues of the SQS route, on an emulator of the run's own.
const (
	sqsSource = "gobridge-bench-src"
	sqsTarget = "gobridge-bench-dst"
	// sqsSourceVisibility leaves the forwarders seconds per message (the
	// bridge extends it for messages held longer; the reference holds
	// each well under a second).
	sqsSourceVisibility = 5 * time.Second
	// sqsTargetVisibility is the sink's: it deletes what it received at once.
	sqsTargetVisibility = 2 * time.Second
)

// sqsEmuBin builds tools/sqsemu into the scratch directory on first use
// and returns the binary's path.
func (e *env) sqsEmuBin(ctx context.Context) (string, error) {
	bin := filepath.Join(e.work, "sqsemu")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	// Built inside its own module: works with and without the workspace.
	if err := goBuild(ctx, filepath.Join(e.repo, "tools", "sqsemu"), bin, "."); err != nil {
		return "", err
	}
	return bin, nil
}

// runSQS measures one forwarder on the route sqs-sqs: a private goaws
// emulator per run (the queues start empty and the emulator's CPU is the
// run's alone), N stamped messages preloaded (or, live, published while
// the forwarder runs) to its source queue, a sink that receives and
// deletes from the target queue, and the forwarder between them. With
// o.sqsCount the forwarder talks to the emulator through a proxy that
// counts its calls by action.
func (e *env) runSQS(ctx context.Context, c cell, im impl, rep int, o runOpts) (res result) {
	res = result{Cell: c.String(), Route: c.route, Size: c.size, Window: c.window, Impl: im.name, Rep: rep, N: o.n}
	fail := func(err error) result { res.Err = err.Error(); return res }
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	run := rand.Uint64()
	dir, err := os.MkdirTemp(e.work, "run-")
	if err != nil {
		return fail(err)
	}
	bin, err := e.sqsEmuBin(ctx)
	if err != nil {
		return fail(err)
	}
	emu, err := sqsio.StartEmu(ctx, bin, dir)
	if err != nil {
		return fail(err)
	}
	defer emu.Stop()
	client, err := sqsio.NewClient(ctx, emu.Endpoint)
	if err != nil {
		return fail(err)
	}
	// Short visibility timeouts: a receive whose response goaws or the
	// SDK loses hides its messages until then, for every forwarder and the
	// sink alike; at 30s each loss put a 30s tail on the run.
	urls, err := sqsio.Prepare(ctx, client, sqsio.Queue{Name: sqsSource, Visibility: sqsSourceVisibility},
		sqsio.Queue{Name: sqsTarget, Visibility: sqsTargetVisibility})
	if err != nil {
		return fail(err)
	}
	publish := func() error {
		return sqsio.Publish(ctx, client, urls[0], sqsio.Load{Run: run, N: o.n, Size: c.size, Rate: o.rate})
	}
	if !o.live {
		t0 := time.Now()
		if err := publish(); err != nil {
			return fail(fmt.Errorf("preload: %w", err))
		}
		res.PreloadRate = float64(o.n) / time.Since(t0).Seconds()
	}
	endpoint := emu.Endpoint
	var proxy *sqsio.CallProxy
	if o.sqsCount {
		if proxy, err = sqsio.StartCallProxy(emu.Endpoint); err != nil {
			return fail(err)
		}
		defer proxy.Close()
		endpoint = proxy.Endpoint
	}
	counter := bench.NewCounter(run, o.n)
	sink := sqsio.StartSink(client, urls[1], counter, 0)
	defer func() {
		if err := sink.Stop(); err != nil && res.Err == "" {
			res.Err = "sink: " + err.Error()
		}
	}()
	emu0, _ := bench.ProcCPU(emu.PID())
	p, err := e.startSQSForwarder(ctx, c, im, endpoint, urls, dir)
	if err != nil {
		return fail(err)
	}
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		if err := p.stop(20 * time.Second); err != nil && res.Err == "" {
			res.Err = "stop: " + err.Error()
		}
	}
	defer stop()
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
	if proxy != nil {
		// Stopped first, so that deletes queued at the end are counted.
		stop()
		res.Calls = sqsio.PerMessage(proxy.Calls(), t.Unique)
	}
	return res
}

// startSQSForwarder starts the bridge or the plain batched SDK forwarder
// between the emulator's two queues, talking to endpoint.
func (e *env) startSQSForwarder(ctx context.Context, c cell, im impl, endpoint string, urls []string, dir string) (*fwdProc, error) {
	if !im.bridge {
		args := []string{"-route", c.route, "-sqs", endpoint, "-src", urls[0], "-dst", urls[1], "-window", strconv.Itoa(c.window)}
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
	if err := os.WriteFile(cfg, []byte(sqsBridgeConfig(c, im, endpoint, urls, admin, monitor)), 0o600); err != nil {
		return nil, err
	}
	bin := e.bridgeBin
	if im.minimal {
		bin = e.minimalBin
	}
	return startBridge(ctx, bin, cfg, dir, monitor, e.bridgeEnv)
}

// sqsBridgeConfig is the gobridge YAML for sqs-sqs: an sqs receiver on
// the source queue and an sqs sender to the target queue, both on the
// Query protocol with static keys (what goaws needs), and a direct_hold
// route with max_in_flight = window between them (the receiver derives
// its pollers from it: window/10, at most 10, as the reference does).
func sqsBridgeConfig(c cell, im impl, endpoint string, urls []string, adminPort, monitorPort int) string {
	var b strings.Builder
	client := fmt.Sprintf("{region: %s, endpoint: %q, protocol: query, access_key_id: %s, secret_access_key: %s}",
		sqsio.Region, endpoint, sqsio.AccessKey, sqsio.SecretKey)
	b.WriteString("bridge: {id: bench, shutdown_timeout: 5s}\n")
	fmt.Fprintf(&b, "receivers:\n  - {id: in, type: sqs, settings: {queue: %q, client: %s}}\n", urls[0], client)
	fmt.Fprintf(&b, "senders:\n  - {id: out, type: sqs, settings: {queue: %q, client: %s}}\n", urls[1], client)
	fmt.Fprintf(&b, "bindings:\n  - {id: to-dst, sender_id: out, address: %q}\n", urls[1])
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
