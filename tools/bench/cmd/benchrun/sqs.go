package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
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

// sqsRoute is the route sqs-sqs: a private goaws emulator per run (the
// queues start empty and the emulator's CPU is the run's alone), a sink
// that receives and deletes from the target queue. With -sqs-count the
// forwarder talks to the emulator through a proxy that counts its calls
// by action.
type sqsRoute struct {
	emu      *sqsio.Emu
	client   *sqs.Client
	urls     []string         // source, target
	endpoint string           // what the forwarder talks to: the emulator or the proxy
	proxy    *sqsio.CallProxy // nil without -sqs-count
}

func (e *env) openSQS(ctx context.Context, dir string, count bool) (_ peerRoute, err error) {
	bin, err := e.sqsEmuBin(ctx)
	if err != nil {
		return nil, err
	}
	emu, err := sqsio.StartEmu(ctx, bin, dir)
	if err != nil {
		return nil, err
	}
	r := &sqsRoute{emu: emu, endpoint: emu.Endpoint}
	defer func() {
		if err != nil {
			r.close()
		}
	}()
	if r.client, err = sqsio.NewClient(ctx, emu.Endpoint); err != nil {
		return nil, err
	}
	// Short visibility timeouts: a receive whose response goaws or the
	// SDK loses hides its messages until then, for every forwarder and the
	// sink alike; at 30s each loss put a 30s tail on the run.
	r.urls, err = sqsio.Prepare(ctx, r.client, sqsio.Queue{Name: sqsSource, Visibility: sqsSourceVisibility},
		sqsio.Queue{Name: sqsTarget, Visibility: sqsTargetVisibility})
	if err != nil {
		return nil, err
	}
	if count {
		if r.proxy, err = sqsio.StartCallProxy(emu.Endpoint); err != nil {
			return nil, err
		}
		r.endpoint = r.proxy.Endpoint
	}
	return r, nil
}

// publish talks to the emulator directly: the proxy counts only the
// forwarder's calls.
func (r *sqsRoute) publish(ctx context.Context, run uint64, n, size, rate int) error {
	return sqsio.Publish(ctx, r.client, r.urls[0], sqsio.Load{Run: run, N: n, Size: size, Rate: rate})
}

func (r *sqsRoute) sink(_ context.Context, c *bench.Counter) (peerSink, error) {
	return sqsSink{sqsio.StartSink(r.client, r.urls[1], c, 0)}, nil
}

func (r *sqsRoute) brokerPID() (int, bool) { return r.emu.PID(), false }

func (r *sqsRoute) refArgs(c cell) []string {
	return []string{"-route", c.route, "-sqs", r.endpoint, "-src", r.urls[0], "-dst", r.urls[1], "-window", strconv.Itoa(c.window)}
}

func (r *sqsRoute) bridgeConfig(c cell, im impl, adminPort, monitorPort int) string {
	return sqsBridgeConfig(c, im, r.endpoint, r.urls, adminPort, monitorPort)
}

func (r *sqsRoute) live() bool { return false }

// callsAfterStop are the forwarder's calls per message, by action, as the
// proxy counted them (any forwarder, not only the bridge).
func (r *sqsRoute) callsAfterStop(messages int) (string, bool) {
	if r.proxy == nil {
		return "", false
	}
	return sqsio.PerMessage(r.proxy.Calls(), messages), true
}

func (r *sqsRoute) close() {
	if r.proxy != nil {
		_ = r.proxy.Close()
	}
	r.emu.Stop()
}

// sqsSink is the SQS sink, which does not describe what it received.
type sqsSink struct{ *sqsio.Sink }

func (sqsSink) wire() (string, bool) { return "", false }

// sqsBridgeConfig is the gobridge YAML for sqs-sqs: an sqs receiver on
// the source queue and an sqs sender to the target queue, both on the
// Query protocol with static keys (what goaws needs), and a direct_hold
// route with max_in_flight = window between them (the receiver derives
// its pollers from it: window/10, at most 10, as the reference does).
// +minhdr turns on the sender's minimal_headers.
func sqsBridgeConfig(c cell, im impl, endpoint string, urls []string, adminPort, monitorPort int) string {
	var b strings.Builder
	client := fmt.Sprintf("{region: %s, endpoint: %q, protocol: query, access_key_id: %s, secret_access_key: %s}",
		sqsio.Region, endpoint, sqsio.AccessKey, sqsio.SecretKey)
	b.WriteString("bridge: {id: bench, shutdown_timeout: 5s}\n")
	fmt.Fprintf(&b, "receivers:\n  - {id: in, type: sqs, settings: {queue: %q, client: %s}}\n", urls[0], client)
	fmt.Fprintf(&b, "senders:\n  - {id: out, type: sqs, settings: {queue: %q, client: %s%s}}\n", urls[1], client, im.minimalHeaders())
	fmt.Fprintf(&b, "bindings:\n  - {id: to-dst, sender_id: out, address: %q}\n", urls[1])
	b.WriteString(peerRoutePolicy(c, im, adminPort, monitorPort))
	return b.String()
}
