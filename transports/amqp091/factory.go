package amqp091

import (
	"context"

	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/registry"
)

// FactoryType is the type name of this module's session, receiver and
// sender in configuration files.
const FactoryType = "amqp091"

// factoryOptions turns registry dependencies into Options.
func factoryOptions(d registry.Settings) []Option {
	var opts []Option
	if d.ID != "" {
		opts = append(opts, WithName(d.ID))
	}
	opts = append(opts, WithLogger(d.Logger))
	opts = append(opts, WithMeter(d.Meter))
	if d.MaxInFlight > 0 {
		opts = append(opts, WithMaxInFlight(d.MaxInFlight))
	}
	return opts
}

// SessionFactory builds AMQP 0-9-1 sessions (`type: amqp091` under
// sessions) from a SessionConfig settings block.
func SessionFactory() registry.SessionFactory {
	return registry.Session(FactoryType, "an AMQP 0-9-1 connection with its topology, shared by receivers and senders",
		func(_ context.Context, cfg SessionConfig, d registry.Settings) (ports.Session, error) {
			return NewSession(cfg, factoryOptions(d)...)
		})
}

// ReceiverFactory builds queue consumers (`type: amqp091` under
// receivers) on the session the entry's session_id names; the prefetch
// follows the route's max_in_flight, and the linger the stop timeout the
// bridge passes through Receiver.SetStopTimeout.
func ReceiverFactory() registry.ReceiverFactory {
	return registry.Receiver(FactoryType, "consumes a RabbitMQ queue with manual acknowledgements",
		func(_ context.Context, cfg ReceiverConfig, d registry.Settings) (ports.Receiver, error) {
			s, err := registry.SessionAs[*Session](d, FactoryType)
			if err != nil {
				return nil, err
			}
			return NewReceiver(s, cfg, factoryOptions(d)...)
		})
}

// SenderFactory builds confirming publishers (`type: amqp091` under
// senders) on the session the entry's session_id names.
func SenderFactory() registry.SenderFactory {
	return registry.Sender(FactoryType, "publishes to a RabbitMQ exchange with publisher confirms",
		func(_ context.Context, cfg SenderConfig, d registry.Settings) (ports.Sender, error) {
			s, err := registry.SessionAs[*Session](d, FactoryType)
			if err != nil {
				return nil, err
			}
			return NewSender(s, cfg, factoryOptions(d)...)
		})
}
