package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/gobridge-oss/gobridge/tools/bench"
	"github.com/gobridge-oss/gobridge/tools/bench/internal/amqp10io"
	"github.com/gobridge-oss/gobridge/tools/bench/internal/amqpio"
	"github.com/gobridge-oss/gobridge/tools/bench/internal/sbio"
)

// The queues of the Service Bus route, on an emulator of the run's own.
const (
	sbSource = "bench-src"
	sbTarget = "bench-dst"
)

// sbRoute is the route sb-sb: a private Service Bus emulator per run
// (queues start empty and the emulator's CPU is the run's alone), a
// peek-lock sink on the target queue.
type sbRoute struct{ emu *sbio.Emulator }

func openSB(ctx context.Context, _ cell, _ string) (peerRoute, error) {
	emu, err := sbio.Start(ctx, sbSource, sbTarget)
	if err != nil {
		return nil, err
	}
	return &sbRoute{emu: emu}, nil
}

func (r *sbRoute) publish(ctx context.Context, run uint64, n, size, rate int) error {
	return sbio.Publish(ctx, r.emu.ConnectionString(), sbSource, sbio.Load{Run: run, N: n, Size: size, Rate: rate})
}

func (r *sbRoute) sink(_ context.Context, c *bench.Counter) (peerSink, error) {
	s, err := sbio.StartSink(r.emu.ConnectionString(), sbTarget, c)
	if err != nil {
		return nil, err
	}
	return sbSink{s}, nil
}

func (r *sbRoute) brokerPID() (int, bool) { return r.emu.PID(), false }

func (r *sbRoute) refArgs(c cell) []string {
	return []string{"-route", c.route, "-sb", r.emu.ConnectionString(), "-src", sbSource, "-dst", sbTarget, "-window", strconv.Itoa(c.window)}
}

func (r *sbRoute) bridgeConfig(c cell, im impl, adminPort, monitorPort int) string {
	return sbBridgeConfig(c, im, r.emu.ConnectionString(), adminPort, monitorPort)
}

func (r *sbRoute) live() bool { return false }

// calls are the bridge's receive and send calls per 100 messages, from
// the Service Bus transport's counters.
func (r *sbRoute) calls(metrics string, messages int) string {
	per := func(name string) float64 { return metricSum(metrics, name) / float64(messages) * 100 }
	return fmt.Sprintf("receive %.2f, send %.2f per 100 messages",
		per("gobridge_servicebus_receive_calls_total"), per("gobridge_servicebus_send_calls_total"))
}

func (r *sbRoute) close() { _ = r.emu.Close() }

type sbSink struct{ *sbio.Sink }

func (s sbSink) wire() (string, bool) {
	w, ok := s.FirstWire()
	return w.String(), ok
}

// sbBridgeConfig is the gobridge YAML for sb-sb: a Service Bus receiver
// on the source queue and a Service Bus sender to the target queue, a
// direct_hold route with max_in_flight = window between them (the
// receiver asks for as many messages as the window leaves free).
// +minhdr turns on the sender's minimal_headers.
func sbBridgeConfig(c cell, im impl, connStr string, adminPort, monitorPort int) string {
	var b strings.Builder
	b.WriteString("bridge: {id: bench, shutdown_timeout: 5s}\n")
	fmt.Fprintf(&b, "receivers:\n  - {id: in, type: servicebus, settings: {queue: %s, client: {connection_string: %q}}}\n", sbSource, connStr)
	fmt.Fprintf(&b, "senders:\n  - {id: out, type: servicebus, settings: {entity: %s, client: {connection_string: %q}%s}}\n", sbTarget, connStr, im.minimalHeaders())
	fmt.Fprintf(&b, "bindings:\n  - {id: to-dst, sender_id: out, address: %s}\n", sbTarget)
	b.WriteString(peerRoutePolicy(c, im, adminPort, monitorPort))
	return b.String()
}

// sinker is a running sink of any protocol (the sink command's).
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
	case *amqp10io.Sink:
		w, ok := s.FirstWire()
		return w.String(), ok
	}
	return "", false
}
