package sqs

import (
	"context"

	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/registry"
)

// FactoryType is the type name of this module's receiver and sender in
// configuration files.
const FactoryType = "sqs"

// factoryOptions turns registry dependencies into Options.
func factoryOptions(d registry.Settings) []Option {
	var opts []Option
	opts = append(opts, WithLogger(d.Logger.With("component", d.ID)))
	if d.MaxInFlight > 0 {
		opts = append(opts, WithMaxInFlight(d.MaxInFlight))
	}
	return opts
}

// ReceiverFactory builds queue pollers (`type: sqs` under receivers);
// the number of messages held at once follows the route's max_in_flight.
func ReceiverFactory() registry.ReceiverFactory {
	return registry.Receiver(FactoryType, "long-polls an Amazon SQS queue, deleting messages once handled",
		func(ctx context.Context, cfg ReceiverConfig, d registry.Settings) (ports.Receiver, error) {
			c, err := NewClient(ctx, cfg.Client)
			if err != nil {
				return nil, err
			}
			return NewReceiver(c, cfg, factoryOptions(d)...)
		})
}

// SenderFactory builds batching senders (`type: sqs` under senders).
func SenderFactory() registry.SenderFactory {
	return registry.Sender(FactoryType, "sends to Amazon SQS queues in batches of up to 10",
		func(ctx context.Context, cfg SenderConfig, d registry.Settings) (ports.Sender, error) {
			c, err := NewClient(ctx, cfg.Client)
			if err != nil {
				return nil, err
			}
			return NewSender(c, cfg, factoryOptions(d)...)
		})
}
