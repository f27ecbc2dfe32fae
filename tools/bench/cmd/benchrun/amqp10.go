package main

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/gobridge-oss/gobridge/tools/bench"
	"github.com/gobridge-oss/gobridge/tools/bench/internal/amqp10io"
	"github.com/gobridge-oss/gobridge/tools/bench/internal/amqpio"
)

// The queues of the AMQP 1.0 route, declared over AMQP 0-9-1 and reached
// as /amq/queue/NAME through RabbitMQ's AMQP 1.0 plugin.
const (
	amqp10Source = "gobridge.bench.amqp10.src"
	amqp10Target = "gobridge.bench.amqp10.dst"
)

// amqp10Route is the route amqp10-amqp10: a queue to a queue on the
// harness's RabbitMQ, both ends over AMQP 1.0, the broker's CPU read from
// RabbitMQ's process.
type amqp10Route struct {
	url       string // amqp://user:pass@host:port/ (also the 0-9-1 URL)
	rabbitPID int
}

func (e *env) openAMQP10(ctx context.Context, _ cell, _ string) (peerRoute, error) {
	// The exchange is not used; Prepare declares it with the queues.
	if err := amqpio.Prepare(e.amqpURL, amqpio.Topology{Source: amqp10Source, Exchange: "gobridge.bench.amqp10", Target: amqp10Target}); err != nil {
		return nil, err
	}
	return &amqp10Route{url: e.amqpURL, rabbitPID: e.rabbitPID}, nil
}

func (r *amqp10Route) publish(ctx context.Context, run uint64, n, size, rate int) error {
	return amqp10io.Publish(ctx, r.url, amqp10io.QueueAddress(amqp10Source), amqp10io.Load{Run: run, N: n, Size: size, Rate: rate})
}

func (r *amqp10Route) sink(ctx context.Context, c *bench.Counter) (peerSink, error) {
	s, err := amqp10io.StartSink(ctx, r.url, amqp10io.QueueAddress(amqp10Target), c)
	if err != nil {
		return nil, err
	}
	return amqp10Sink{s}, nil
}

func (r *amqp10Route) brokerPID() (int, bool) { return r.rabbitPID, true }

func (r *amqp10Route) refArgs(c cell) []string {
	return []string{"-route", c.route, "-amqp", r.url, "-src", amqp10Source, "-dst", amqp10Target, "-window", strconv.Itoa(c.window)}
}

func (r *amqp10Route) bridgeConfig(c cell, im impl, adminPort, monitorPort int) string {
	return amqp10BridgeConfig(c, im, r.url, adminPort, monitorPort)
}

func (r *amqp10Route) live() bool { return false }

func (r *amqp10Route) close() {}

type amqp10Sink struct{ *amqp10io.Sink }

func (s amqp10Sink) wire() (string, bool) {
	w, ok := s.FirstWire()
	return w.String(), ok
}

// amqp10BridgeConfig is the gobridge YAML for amqp10-amqp10: one AMQP 1.0
// session (the transport takes the credentials as fields, not in the
// URL), a receiver on the source queue with credit = window and
// `released` retries (RabbitMQ 3.x does not know `modified`), a sender to
// the target queue, a direct_hold route with max_in_flight = window.
func amqp10BridgeConfig(c cell, im impl, amqpURL string, adminPort, monitorPort int) string {
	host, user, pass := "127.0.0.1:5672", "guest", "guest"
	if u, err := url.Parse(amqpURL); err == nil {
		host = u.Host
		if u.User != nil {
			user = u.User.Username()
			pass, _ = u.User.Password()
		}
	}
	var b strings.Builder
	b.WriteString("bridge: {id: bench, shutdown_timeout: 5s}\nsessions:\n")
	fmt.Fprintf(&b, "  - {id: r10, type: amqp10, settings: {url: \"amqp://%s\", username: %q, password: %q}}\n", host, user, pass)
	fmt.Fprintf(&b, "receivers:\n  - {id: in, type: amqp10, session_id: r10, settings: {address: %q, retry: released}}\n", amqp10io.QueueAddress(amqp10Source))
	fmt.Fprintf(&b, "senders:\n  - {id: out, type: amqp10, session_id: r10, settings: {address: %q}}\n", amqp10io.QueueAddress(amqp10Target))
	fmt.Fprintf(&b, "bindings:\n  - {id: to-dst, sender_id: out, address: %q}\n", amqp10io.QueueAddress(amqp10Target))
	b.WriteString(peerRoutePolicy(c, im, adminPort, monitorPort))
	return b.String()
}
