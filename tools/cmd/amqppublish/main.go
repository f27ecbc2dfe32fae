// Command amqppublish publishes one message to an AMQP 0-9-1 broker and
// waits for the broker's confirm, or declares durable queues. It lets the
// examples' header comments show a publish that works on a RabbitMQ
// without the management plugin (which rabbitmqadmin needs):
//
//	go run ./tools/cmd/amqppublish -exchange orders -key order.created \
//	    -header gobridge.subject=orders.created '{"id":7}'
//	go run ./tools/cmd/amqppublish -declare-queue orders.in -declare-queue orders.out
//
// With no body it only declares the queues it is given.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// request is what the command line asks for.
type request struct {
	url         string
	exchange    string
	key         string
	contentType string
	headers     amqp.Table
	queues      []string
	body        string
	hasBody     bool
	timeout     time.Duration
}

// listFlag collects a repeated flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// parse reads the command line; a problem is returned with the usage.
func parse(args []string, stderr io.Writer) (request, error) {
	fs := flag.NewFlagSet("amqppublish", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: amqppublish [flags] [BODY]\n\nPublishes BODY and waits for the broker's confirm; without BODY only declares the -declare-queue queues.")
		fs.PrintDefaults()
	}
	r := request{headers: amqp.Table{}}
	var headers, queues listFlag
	fs.StringVar(&r.url, "url", "amqp://guest:guest@127.0.0.1:5672/", "broker URL")
	fs.StringVar(&r.exchange, "exchange", "", `exchange to publish to ("" is the default exchange, which routes by queue name)`)
	fs.StringVar(&r.key, "key", "", "routing key")
	fs.StringVar(&r.contentType, "content-type", "application/json", "content type of the body")
	fs.Var(&headers, "header", "NAME=VALUE message header (repeatable)")
	fs.Var(&queues, "declare-queue", "declare this durable queue first (repeatable)")
	fs.DurationVar(&r.timeout, "timeout", 10*time.Second, "longest wait for the broker")
	if err := fs.Parse(args); err != nil {
		return r, err
	}
	for _, h := range headers {
		name, value, ok := strings.Cut(h, "=")
		if !ok || name == "" {
			return r, fmt.Errorf("-header %q: want NAME=VALUE", h)
		}
		r.headers[name] = value
	}
	r.queues = queues
	switch fs.NArg() {
	case 0:
		if len(r.queues) == 0 {
			return r, errors.New("nothing to do: give a BODY to publish or -declare-queue")
		}
	case 1:
		r.body, r.hasBody = fs.Arg(0), true
	default:
		return r, fmt.Errorf("one BODY argument expected, got %d (quote the body)", fs.NArg())
	}
	return r, nil
}

// run is the command; it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	r, err := parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "amqppublish:", err)
		return 2
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	if err := do(ctx, r, stdout); err != nil {
		fmt.Fprintln(stderr, "amqppublish:", err)
		return 1
	}
	return 0
}

// do connects, declares and publishes as r asks.
func do(ctx context.Context, r request, stdout io.Writer) error {
	conn, err := amqp.DialConfig(r.url, amqp.Config{Dial: amqp.DefaultDial(r.timeout), Properties: amqp.Table{"connection_name": "amqppublish"}})
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		return fmt.Errorf("channel: %w", err)
	}
	for _, q := range r.queues {
		if _, err := ch.QueueDeclare(q, true, false, false, false, nil); err != nil {
			return fmt.Errorf("declare queue %q: %w", q, err)
		}
		fmt.Fprintf(stdout, "queue %q declared\n", q)
	}
	if !r.hasBody {
		return nil
	}
	if err := ch.Confirm(false); err != nil {
		return fmt.Errorf("confirm mode: %w", err)
	}
	returned := ch.NotifyReturn(make(chan amqp.Return, 1))
	closed := ch.NotifyClose(make(chan *amqp.Error, 1))
	conf, err := ch.PublishWithDeferredConfirmWithContext(ctx, r.exchange, r.key, true, false, amqp.Publishing{
		ContentType: r.contentType, Headers: r.headers, Body: []byte(r.body), DeliveryMode: amqp.Persistent,
	})
	if err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	acked, err := conf.WaitContext(ctx)
	if err != nil {
		return fmt.Errorf("waiting for the confirm: %w", err)
	}
	// A channel the broker closed (no such exchange) also closes the
	// return channel, so look at the close first.
	select {
	case e := <-closed:
		if e != nil {
			return fmt.Errorf("the broker closed the channel: %w", e)
		}
		return errors.New("the broker closed the channel")
	default:
	}
	select {
	case ret, ok := <-returned:
		if ok {
			return fmt.Errorf("unroutable: exchange %q has no queue bound for routing key %q (%s)", r.exchange, r.key, ret.ReplyText)
		}
	default:
	}
	if !acked {
		return errors.New("the broker refused the message (nack)")
	}
	fmt.Fprintf(stdout, "published %d bytes to exchange %q with routing key %q (confirmed)\n", len(r.body), r.exchange, r.key)
	return nil
}
