package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/gobridge-oss/gobridge/tools/bench"
	"github.com/gobridge-oss/gobridge/tools/bench/internal/amqpio"
	"github.com/gobridge-oss/gobridge/tools/bench/internal/httpio"
)

// The target of the HTTP route: an exchange and a queue bound to it with
// its own name as the routing key.
const (
	httpExchange = "gobridge.bench.http"
	httpTarget   = "gobridge.bench.http.dst"
)

// httpRoute is the route http-amqp: the load generator POSTs each stamped
// message to the forwarder (window requests in flight), which publishes
// it to RabbitMQ with a confirm and answers after the confirm; the sink
// counts the target queue. There is no backlog to preload, so it always
// runs live.
type httpRoute struct {
	amqpURL   string
	rabbitPID int
	listen    string // 127.0.0.1:PORT, free when the run starts
	window    int
}

func (e *env) openHTTP(ctx context.Context, c cell, _ string) (peerRoute, error) {
	if err := amqpio.Prepare(e.amqpURL, amqpio.Topology{Exchange: httpExchange, Target: httpTarget}); err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	return &httpRoute{amqpURL: e.amqpURL, rabbitPID: e.rabbitPID, listen: "127.0.0.1:" + strconv.Itoa(port), window: c.window}, nil
}

func (r *httpRoute) publish(ctx context.Context, run uint64, n, size, rate int) error {
	_, err := httpio.Publish(ctx, "http://"+r.listen+"/publish/bench", httpio.Load{Run: run, N: n, Size: size, Rate: rate, Concurrency: r.window})
	return err
}

func (r *httpRoute) sink(_ context.Context, c *bench.Counter) (peerSink, error) {
	s, err := amqpio.StartSink(r.amqpURL, httpTarget, c)
	if err != nil {
		return nil, err
	}
	return amqpSink{s}, nil
}

func (r *httpRoute) brokerPID() (int, bool) { return r.rabbitPID, true }

func (r *httpRoute) refArgs(c cell) []string {
	return []string{"-route", c.route, "-amqp", r.amqpURL, "-listen", r.listen, "-exchange", httpExchange, "-key", httpTarget}
}

func (r *httpRoute) bridgeConfig(c cell, im impl, adminPort, monitorPort int) string {
	return httpBridgeConfig(c, im, r.amqpURL, r.listen, adminPort, monitorPort)
}

func (r *httpRoute) live() bool { return true }

func (r *httpRoute) close() {}

type amqpSink struct{ *amqpio.Sink }

func (s amqpSink) wire() (string, bool) {
	w, ok := s.FirstWire()
	return w.String(), ok
}

// httpBridgeConfig is the gobridge YAML for http-amqp: an http receiver
// taking raw bodies on /publish/{subject} (a raw body's subject comes from
// the path; the load generator posts to /publish/bench), an amqp091 sender to the bench exchange,
// a direct_hold route with max_in_flight = window (a request is answered
// once RabbitMQ confirmed its message).
func httpBridgeConfig(c cell, im impl, amqpURL, listen string, adminPort, monitorPort int) string {
	var b strings.Builder
	b.WriteString("bridge: {id: bench, shutdown_timeout: 5s}\nsessions:\n")
	fmt.Fprintf(&b, "  - {id: rabbit-out, type: amqp091, settings: {url: %q, connection_name: gobridge-bench-out}}\n", amqpURL)
	fmt.Fprintf(&b, "receivers:\n  - {id: in, type: http, settings: {listen: %q, paths: [\"/publish/{subject}\"], body: raw}}\n", listen)
	extra := ""
	if im.mods["nomandatory"] {
		extra = ", mandatory: false"
	}
	extra += im.minimalHeaders()
	fmt.Fprintf(&b, "senders:\n  - {id: out, type: amqp091, session_id: rabbit-out, settings: {exchange: %s%s}}\n", httpExchange, extra)
	fmt.Fprintf(&b, "bindings:\n  - {id: to-dst, sender_id: out, address: %s}\n", httpTarget)
	b.WriteString(peerRoutePolicy(c, im, adminPort, monitorPort))
	return b.String()
}
