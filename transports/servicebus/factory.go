package servicebus

import (
	"context"

	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/registry"
)

// FactoryType is the type name of this module's receiver and sender in
// configuration files.
const FactoryType = "servicebus"

// factoryOptions turns registry dependencies into Options.
func factoryOptions(d registry.Settings) []Option {
	var opts []Option
	if d.ID != "" {
		opts = append(opts, WithName(d.ID))
	}
	opts = append(opts, WithLogger(d.Logger.With("component", d.ID)))
	opts = append(opts, WithMeter(d.Meter))
	if d.MaxInFlight > 0 {
		opts = append(opts, WithMaxInFlight(d.MaxInFlight))
	}
	return opts
}

// ReceiverFactory builds peek-lock receivers of queues and topic
// subscriptions (`type: servicebus` under receivers); how many messages
// they hold locked at once follows the route's max_in_flight. Receivers
// built by one such factory with the same client block share an SDK
// client; Factories also shares it with the senders.
func ReceiverFactory() registry.ReceiverFactory { return receiverFactory(newClientPool()) }

// SenderFactory builds batching senders to queues and topics
// (`type: servicebus` under senders). Senders built by one such factory
// with the same client block share an SDK client; Factories also shares
// it with the receivers.
func SenderFactory() registry.SenderFactory { return senderFactory(newClientPool()) }

// receiverFactory is ReceiverFactory drawing its clients from pool.
func receiverFactory(pool *clientPool) registry.ReceiverFactory {
	return registry.Receiver(FactoryType, "receives from an Azure Service Bus queue or subscription under peek locks, sessions included",
		func(_ context.Context, cfg ReceiverConfig, d registry.Settings) (ports.Receiver, error) {
			c, release, err := pool.acquire(cfg.Client)
			if err != nil {
				return nil, err
			}
			r, err := NewReceiver(c, cfg, factoryOptions(d)...)
			if err != nil {
				_ = release(context.Background())
				return nil, err
			}
			r.release = release
			return r, nil
		})
}

// senderFactory is SenderFactory drawing its clients from pool.
func senderFactory(pool *clientPool) registry.SenderFactory {
	return registry.Sender(FactoryType, "sends to Azure Service Bus queues and topics in message batches",
		func(_ context.Context, cfg SenderConfig, d registry.Settings) (ports.Sender, error) {
			c, release, err := pool.acquire(cfg.Client)
			if err != nil {
				return nil, err
			}
			s, err := NewSender(c, cfg, factoryOptions(d)...)
			if err != nil {
				_ = release(context.Background())
				return nil, err
			}
			s.release = release
			return s, nil
		})
}
