package main

import (
	"fmt"
	"strings"
)

// cell is one point of the matrix.
type cell struct {
	route  string // amqp-amqp or mqtt-amqp
	size   int
	window int
}

func (c cell) String() string { return fmt.Sprintf("%s %dB w%d", c.route, c.size, c.window) }

// names are the broker objects of a run; they are reused (and purged)
// from run to run so that nothing piles up on the shared broker.
type names struct {
	src, exchange, dst string // AMQP
	topic, clientID    string // MQTT
}

func namesFor(route string, im impl) names {
	n := names{src: "gobridge.bench.src", exchange: "gobridge.bench", dst: "gobridge.bench.dst", topic: "bench/in"}
	n.clientID = "gobridge-bench-ref"
	if im.bridge {
		n.clientID = "gobridge-bench-bridge"
	}
	return n
}

// bridgeConfig is the gobridge YAML for a cell: a direct_hold route with
// max_in_flight = window from the source to the exchange n.exchange with
// routing key n.dst.
func bridgeConfig(c cell, im impl, n names, amqpURL, mqttAddr string, adminPort, monitorPort int) string {
	var b strings.Builder
	b.WriteString("bridge: {id: bench, shutdown_timeout: 5s}\nsessions:\n")
	coalesce := ""
	if im.mods["nocoalescewrites"] {
		coalesce = ", coalesce_writes: false"
	}
	out := "rabbit-out"
	switch c.route {
	case "amqp-amqp":
		fmt.Fprintf(&b, "  - {id: rabbit-in, type: amqp091, settings: {url: %q, connection_name: gobridge-bench-in%s}}\n", amqpURL, coalesce)
		if im.mods["1conn"] {
			out = "rabbit-in"
		}
	case "mqtt-amqp":
		fmt.Fprintf(&b, "  - id: mosq\n    type: mqtt\n    settings: {urls: [\"mqtt://%s\"], client_id: %s, session_expiry: 1h, receive_maximum: %d}\n",
			mqttAddr, n.clientID, c.window)
	}
	if out == "rabbit-out" {
		fmt.Fprintf(&b, "  - {id: rabbit-out, type: amqp091, settings: {url: %q, connection_name: gobridge-bench-out%s}}\n", amqpURL, coalesce)
	}
	b.WriteString("receivers:\n")
	switch c.route {
	case "amqp-amqp":
		ack := ""
		if im.mods["noackcoalesce"] {
			ack = ", ack_coalescing: false"
		}
		fmt.Fprintf(&b, "  - {id: in, type: amqp091, session_id: rabbit-in, settings: {queue: %s%s}}\n", n.src, ack)
	case "mqtt-amqp":
		fmt.Fprintf(&b, "  - {id: in, type: mqtt, session_id: mosq, settings: {subscriptions: [{topic: %q, qos: 1}]}}\n", n.topic)
	}
	extra := ""
	if im.mods["nomandatory"] {
		extra = ", mandatory: false"
	}
	extra += im.minimalHeaders()
	fmt.Fprintf(&b, "senders:\n  - {id: out, type: amqp091, session_id: %s, settings: {exchange: %s%s}}\n", out, n.exchange, extra)
	fmt.Fprintf(&b, "bindings:\n  - {id: to-dst, sender_id: out, address: %s}\n", n.dst)
	policy := ""
	if im.noDLQ() {
		// Nothing fails in these runs; without a store a failure would be
		// dropped, as the reference forwarder would.
		policy = ", on_expired: drop, on_permanent_failure: drop, allow_retry_drop: true"
	}
	fmt.Fprintf(&b, "routes:\n  - id: bench\n    receiver_id: in\n    delivery_mode: direct_hold\n    bindings: [to-dst]\n    policy: {max_in_flight: %d%s}\n", c.window, policy)
	if !im.noDLQ() {
		b.WriteString("stores:\n  dlq: {type: sqlite, settings: {path: bench.db}}\n")
	}
	fmt.Fprintf(&b, "http:\n  admin_addr: \"127.0.0.1:%d\"\n  monitor_addr: \"127.0.0.1:%d\"\n  admin_api_key: bench-admin-key-0123456789\n", adminPort, monitorPort)
	return b.String()
}
