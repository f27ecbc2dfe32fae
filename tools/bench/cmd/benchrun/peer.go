package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gobridge-oss/gobridge/tools/bench"
)

// peerRoute is what runPeer needs of a route whose two ends live on one
// peer the harness reaches through its own protocol package (Service Bus
// on sbemu, SQS on goaws, AMQP 1.0 on RabbitMQ): how to fill the source,
// count the target, whose CPU is the broker's, and how to start each
// forwarder. A route may also implement callCounter or stopCounter.
type peerRoute interface {
	// publish sends the run's stamped messages to the source.
	publish(ctx context.Context, run uint64, n, size, rate int) error
	// sink starts counting the target into c.
	sink(ctx context.Context, c *bench.Counter) (peerSink, error)
	// brokerPID is the process whose CPU is the broker's, and whether it
	// is RabbitMQ's (the RabbitMQ column) or an emulator's.
	brokerPID() (pid int, rabbit bool)
	// bridgeConfig is the gobridge YAML for the cell.
	bridgeConfig(c cell, im impl, adminPort, monitorPort int) string
	// refArgs are the reference forwarder's flags for the cell.
	refArgs(c cell) []string
	// live reports whether the route can only be loaded while the
	// forwarder runs (an HTTP receiver has no backlog to preload).
	live() bool
	// close releases what the route started for the run.
	close()
}

// peerSink is a running sink.
type peerSink interface {
	Stop() error
	wire() (string, bool)
}

// runPeer measures one forwarder on a peer route: (pre)load N stamped
// messages, start the forwarder, wait until the sink has every sequence
// number, read the forwarder's and the broker's CPU and the forwarder's
// peak RSS, stop it.
func (e *env) runPeer(ctx context.Context, c cell, im impl, rep int, o runOpts,
	open peerOpenFunc) (res result) {
	res = result{Cell: c.String(), Route: c.route, Size: c.size, Window: c.window, Impl: im.name, Rep: rep, N: o.n}
	fail := func(err error) result { res.Err = err.Error(); return res }
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	run := rand.Uint64()
	dir, err := os.MkdirTemp(e.work, "run-")
	if err != nil {
		return fail(err)
	}
	pr, err := open(ctx, c, dir)
	if err != nil {
		return fail(err)
	}
	defer pr.close()
	o.live = o.live || pr.live()
	publish := func() error { return pr.publish(ctx, run, o.n, c.size, o.rate) }
	if !o.live {
		if err := res.preload(o.n, publish); err != nil {
			return fail(err)
		}
	}
	counter := bench.NewCounter(run, o.n)
	sink, err := pr.sink(ctx, counter)
	if err != nil {
		return fail(err)
	}
	defer func() {
		if err := sink.Stop(); err != nil && res.Err == "" {
			res.Err = "sink: " + err.Error()
		}
		if w, ok := sink.wire(); ok {
			res.Wire = w
		}
	}()
	bpid, rabbit := pr.brokerPID()
	into := &res.EmulatorUS
	if rabbit {
		into = &res.RabbitUS
	}
	broker := startBrokerCPU(bpid, into)
	p, monitor, err := e.startPeerForwarder(ctx, c, im, pr, dir)
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
	if cc, ok := pr.(callCounter); ok && monitor != 0 && counter.Unique() > 0 {
		if text, err := scrapeMetrics(ctx, monitor); err == nil {
			res.Calls = cc.calls(text, counter.Unique())
		}
	}
	t := res.measure(p, counter, broker)
	if sc, ok := pr.(stopCounter); ok {
		// Stopped first, so that calls made while stopping (deletes
		// queued at the end) are counted.
		stop()
		if calls, ok := sc.callsAfterStop(t.Unique); ok {
			res.Calls = calls
		}
	}
	return res
}

// startPeerForwarder starts the bridge or the reference forwarder on a
// peer route; for the bridge it also returns its monitor port.
func (e *env) startPeerForwarder(ctx context.Context, c cell, im impl, pr peerRoute, dir string) (*fwdProc, int, error) {
	if !im.bridge {
		p, err := startRef(e.fwdBin, append(pr.refArgs(c), im.fwdArgs()...), dir, e.fwdEnv)
		return p, 0, err
	}
	admin, err := freePort()
	if err != nil {
		return nil, 0, err
	}
	monitor, err := freePort()
	if err != nil {
		return nil, 0, err
	}
	cfg := filepath.Join(dir, "bench.yaml")
	if err := os.WriteFile(cfg, []byte(pr.bridgeConfig(c, im, admin, monitor)), 0o600); err != nil {
		return nil, 0, err
	}
	bin := e.bridgeBin
	if im.minimal {
		bin = e.minimalBin
	}
	p, err := startBridge(ctx, bin, cfg, dir, monitor, im.bridgeEnv(e.bridgeEnv))
	return p, monitor, err
}

// peerAdminKey is the admin API key of the bridge on a peer route, which
// reading its metrics needs.
const peerAdminKey = "bench-admin-key-0123456789"

// callCounter is a peer route that reads, from the bridge's metrics, how
// many calls it made to the peer per message.
type callCounter interface {
	calls(metrics string, messages int) string
}

// stopCounter is a peer route that counts the forwarder's calls itself
// (through a proxy, for any forwarder) and reads them once the forwarder
// stopped; ok is false when it did not count this run.
type stopCounter interface {
	callsAfterStop(messages int) (calls string, ok bool)
}

// scrapeMetrics reads the bridge's Prometheus text from its monitor
// listener.
func scrapeMetrics(ctx context.Context, monitorPort int) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/metrics", monitorPort), nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+peerAdminKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("metrics: %s", resp.Status)
	}
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// metricSum adds up the samples of a counter in Prometheus text (every
// label set).
func metricSum(text, name string) float64 {
	var sum float64
	for line := range strings.SplitSeq(text, "\n") {
		rest, ok := strings.CutPrefix(line, name)
		if !ok || (rest != "" && rest[0] != '{' && rest[0] != ' ') {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		if v, err := strconv.ParseFloat(f[len(f)-1], 64); err == nil {
			sum += v
		}
	}
	return sum
}

// peerRoutePolicy is the route and store part of a peer route's bridge
// configuration: direct_hold, max_in_flight = window, the SQLite DLQ
// store unless the impl runs without one.
func peerRoutePolicy(c cell, im impl, adminPort, monitorPort int) string {
	policy, stores := "", "stores:\n  dlq: {type: sqlite, settings: {path: bench.db}}\n"
	if im.noDLQ() {
		policy, stores = ", on_expired: drop, on_permanent_failure: drop, allow_retry_drop: true", ""
	}
	return fmt.Sprintf("routes:\n  - id: bench\n    receiver_id: in\n    delivery_mode: direct_hold\n    bindings: [to-dst]\n    policy: {max_in_flight: %d%s}\n", c.window, policy) +
		stores +
		fmt.Sprintf("http:\n  admin_addr: \"127.0.0.1:%d\"\n  monitor_addr: \"127.0.0.1:%d\"\n  admin_api_key: %s\n", adminPort, monitorPort, peerAdminKey)
}

// peerRoutes are the routes runPeer measures.
func peerRoutes() []string { return []string{"sb-sb", "amqp10-amqp10", "http-amqp", "sqs-sqs"} }

// peerOpenFunc sets up a run of a peer route; dir is the run's scratch
// directory.
type peerOpenFunc func(ctx context.Context, c cell, dir string) (peerRoute, error)

// peerOpener returns how to set up a run of a peer route, nil for a route
// runPeer does not measure.
func (e *env) peerOpener(route string, o runOpts) peerOpenFunc {
	switch route {
	case "sqs-sqs":
		return func(ctx context.Context, _ cell, dir string) (peerRoute, error) {
			return e.openSQS(ctx, dir, o.sqsCount)
		}
	case "sb-sb":
		return openSB
	case "amqp10-amqp10":
		return e.openAMQP10
	case "http-amqp":
		return e.openHTTP
	}
	return nil
}
