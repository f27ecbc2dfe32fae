// Command embed runs a gobridge bridge inside a Go program of its own,
// with no gobridge binary: an HTTP ingress and a server-sent events
// egress, both from the transports/httpsse module, configured by YAML
// held in the program.
//
//	go run . [-ingress 127.0.0.1:8080] [-sse 127.0.0.1:8090]
//
// POST a message to the ingress and it shows up on the SSE channel
// "orders" (curl -N, a browser EventSource, or the sender's demo page
// at the SSE address). Ctrl-C (or SIGTERM) stops it gracefully.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/gobridge-oss/gobridge/service"
	"github.com/gobridge-oss/gobridge/transports/httpsse"
)

// configYAML is the bridge: one route from the ingress to the SSE
// channel "orders". direct_hold answers each POST once the SSE sender
// took the message, so no store is needed: the channel's replay log is
// kept in memory, on purpose (replay_log: memory), and there is no
// dead-letter queue.
const configYAML = `
bridge:
  id: embedded

receivers:
  - id: http-in
    type: http
    settings:
      listen: %q
      paths: [/publish]

senders:
  - id: sse-out
    type: sse
    settings:
      listen: %q
      path: /events
      replay_log: memory
      demo_page: /

bindings:
  - id: to-browsers
    sender_id: sse-out
    address: orders

routes:
  - id: orders
    receiver_id: http-in
    delivery_mode: direct_hold
    bindings: [to-browsers]
    policy:                      # without a DLQ store, a message that cannot be
      on_expired: drop           # delivered is dropped; the POST's answer says
      on_permanent_failure: drop # so (4xx), as direct_hold reports every outcome
`

func main() {
	ingress := flag.String("ingress", "127.0.0.1:8080", "address of the HTTP ingress (POST /publish)")
	sse := flag.String("sse", "127.0.0.1:8090", "address of the SSE egress (GET /events/orders)")
	flag.Parse()

	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, logger, *ingress, *sse)
	stop()
	if err != nil {
		logger.Error("bridge failed", "error", err)
		os.Exit(1)
	}
}

// run builds the bridge on the two addresses and runs it until ctx ends;
// it returns once the route has drained and the listeners are closed.
func run(ctx context.Context, logger *slog.Logger, ingress, sse string) error {
	cfg := fmt.Appendf(nil, configYAML, ingress, sse)
	svc, err := service.New(ctx, cfg, service.Settings{
		Factories: httpsse.Factories(), // the http receiver, the sse and webhook senders
		Logger:    logger,
	})
	if err != nil {
		return err // a bad configuration lists every problem at once
	}
	logger.Info("bridge built", "publish", "http://"+ingress+"/publish", "watch", "http://"+sse+"/events/orders")
	return svc.Run(ctx)
}
