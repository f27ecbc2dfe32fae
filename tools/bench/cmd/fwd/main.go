// Command fwd is the harness's hand-written reference forwarder: the
// plainest at-least-once forwarder per protocol pair, against which the
// gobridge binary is measured in the same run. It consumes the source,
// publishes each message to the target with publisher confirms, and
// acknowledges the source message only after the target confirmed it,
// with at most -window messages in flight.
//
//	fwd -route amqp-amqp -src bench.src -exchange bench -key bench.dst -window 500
//	fwd -route mqtt-amqp -mqtt 127.0.0.1:18830 -client-id ref -topic bench/in -exchange bench -key bench.dst
//	fwd -route sqs-sqs -sqs http://127.0.0.1:4100 -src SRC_QUEUE_URL -dst DST_QUEUE_URL -window 500
//	fwd -route sb-sb -sb "Endpoint=sb://127.0.0.1:PORT;...;UseDevelopmentEmulator=true" -src in -dst out -window 500
//	fwd -route amqp10-amqp10 -amqp amqp://guest:guest@127.0.0.1:5672 -src bench.src -dst bench.dst -window 500
//	fwd -route http-amqp -listen 127.0.0.1:8080 -exchange bench -key bench.dst
//
// It prints "ready" on stdout once it consumes, and stops on SIGTERM or
// SIGINT. Flags that make it do what the bridge does on the wire (-conns 2,
// -bridge-props, -mandatory) or what the bridge does not (-multi-ack) let a
// run attribute the broker's cost to one difference at a time.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// options are the command's flags.
type options struct {
	route         string
	amqpURL       string
	src           string
	exchange      string
	key           string
	window        int
	conns         int
	multiAck      bool
	bridgeProps   bool
	bridgeHeaders bool
	bridgeIDs     bool
	bridgeMinimal bool
	mandatory     bool
	mqttAddr      string
	clientID      string
	topic         string
	expiry        time.Duration
	sbConn        string // Service Bus connection string (sb-sb)
	dst           string // target queue (sb-sb, sqs-sqs)
	listen        string // HTTP listen address (http-amqp)
	sqsEndpoint   string // SQS emulator URL (sqs-sqs)
	pollers       int    // concurrent receives (sqs-sqs)
}

// sendsIDs reports whether what the forwarder sends carries the bridge's
// message ID and timestamp (-bridge-props, -bridge-ids or -bridge-minimal).
func (o options) sendsIDs() bool { return o.bridgeProps || o.bridgeIDs || o.bridgeMinimal }

// sendsHeaders reports whether it carries the bridge's headers
// (-bridge-props or -bridge-headers).
func (o options) sendsHeaders() bool { return o.bridgeProps || o.bridgeHeaders }

// sendsTopic reports whether a message from MQTT carries its topic as
// the mqtt.topic header, as the bridge's MQTT receiver adds it
// (-bridge-props, -bridge-headers or -bridge-minimal).
func (o options) sendsTopic() bool { return o.sendsHeaders() || o.bridgeMinimal }

func main() {
	var o options
	fs := flag.NewFlagSet("fwd", flag.ExitOnError)
	fs.StringVar(&o.route, "route", "amqp-amqp", "amqp-amqp or mqtt-amqp")
	fs.StringVar(&o.amqpURL, "amqp", "amqp://guest:guest@127.0.0.1:5672/", "RabbitMQ URL")
	fs.StringVar(&o.src, "src", "bench.src", "source queue (amqp-amqp, sb-sb, amqp10-amqp10)")
	fs.StringVar(&o.exchange, "exchange", "bench", "target exchange")
	fs.StringVar(&o.key, "key", "bench.dst", "target routing key")
	fs.IntVar(&o.window, "window", 500, "messages in flight at most (prefetch, MQTT receive maximum)")
	fs.IntVar(&o.conns, "conns", 1, "connections (AMQP 0-9-1, Service Bus): 1 (consume and publish on one) or 2 (one each)")
	fs.BoolVar(&o.multiAck, "multi-ack", false, "acknowledge runs of confirmed deliveries with one multiple ack")
	fs.BoolVar(&o.bridgeProps, "bridge-props", false, "publish what the bridge adds: the gobridge.subject and x-bridge.correlation-id headers (and mqtt.topic from MQTT), a message ID and a timestamp")
	fs.BoolVar(&o.bridgeHeaders, "bridge-headers", false, "only the headers of -bridge-props")
	fs.BoolVar(&o.bridgeIDs, "bridge-ids", false, "only the message ID and timestamp of -bridge-props")
	fs.BoolVar(&o.bridgeMinimal, "bridge-minimal", false, "publish what the bridge's AMQP sender sends with minimal_headers: a message ID, a timestamp and mqtt.topic from MQTT, no x-bridge.* header")
	fs.BoolVar(&o.mandatory, "mandatory", false, "publish with the mandatory flag")
	fs.StringVar(&o.mqttAddr, "mqtt", "127.0.0.1:1883", "MQTT broker host:port (mqtt-amqp)")
	fs.StringVar(&o.clientID, "client-id", "bench-ref", "MQTT client ID; the session is resumed (mqtt-amqp)")
	fs.StringVar(&o.topic, "topic", "bench/in", "MQTT topic filter (mqtt-amqp)")
	fs.DurationVar(&o.expiry, "session-expiry", time.Hour, "MQTT session expiry (mqtt-amqp)")
	fs.StringVar(&o.sbConn, "sb", "", "Service Bus connection string (sb-sb)")
	fs.StringVar(&o.listen, "listen", "127.0.0.1:8080", "HTTP listen address (http-amqp)")
	fs.StringVar(&o.dst, "dst", "bench.dst", "target queue (sb-sb, amqp10-amqp10)")
	fs.StringVar(&o.sqsEndpoint, "sqs", "http://127.0.0.1:4100", "SQS endpoint, Query protocol (sqs-sqs; -src and -dst are queue URLs)")
	fs.IntVar(&o.pollers, "pollers", 0, "concurrent receives (sqs-sqs; 0: window/10, at most 10, as the bridge's sqs receiver)")
	_ = fs.Parse(os.Args[1:])
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	ready := func() { fmt.Println("ready") }
	var err error
	switch o.route {
	case "amqp-amqp":
		err = amqpToAMQP(ctx, o, ready)
	case "mqtt-amqp":
		err = mqttToAMQP(ctx, o, ready)
	case "sqs-sqs":
		err = sqsToSQS(ctx, o, ready, log)
	case "sb-sb":
		err = sbToSB(ctx, o, ready)
	case "amqp10-amqp10":
		err = amqp10ToAMQP10(ctx, o, ready)
	case "http-amqp":
		err = httpToAMQP(ctx, o, ready)
	default:
		err = fmt.Errorf("unknown route %q", o.route)
	}
	if err != nil && ctx.Err() == nil {
		log.Error("fwd stopped", "err", err)
		os.Exit(1)
	}
}
