package amqp10

import (
	"context"

	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/registry"
)

// FactoryType is the type name of this module's session, receiver and
// sender in configuration files.
const FactoryType = "amqp10"

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

// SessionFactory builds AMQP 1.0 connections (`type: amqp10` under
// sessions) from a SessionConfig settings block.
func SessionFactory() registry.SessionFactory {
	return registry.Session(FactoryType, "an AMQP 1.0 connection shared by receivers and senders",
		func(_ context.Context, cfg SessionConfig, d registry.Settings) (ports.Session, error) {
			return NewSession(cfg, factoryOptions(d)...)
		})
}

// ReceiverFactory builds receiving links (`type: amqp10` under
// receivers) on the session the entry's session_id names; the link
// credit follows the route's max_in_flight.
func ReceiverFactory() registry.ReceiverFactory {
	return registry.Receiver(FactoryType, "receives from an AMQP 1.0 address, settling each delivery after the route did",
		func(_ context.Context, cfg ReceiverConfig, d registry.Settings) (ports.Receiver, error) {
			s, err := registry.SessionAs[*Session](d, FactoryType)
			if err != nil {
				return nil, err
			}
			return NewReceiver(s, cfg, factoryOptions(d)...)
		})
}

// SenderFactory builds senders (`type: amqp10` under senders) on the
// session the entry's session_id names.
func SenderFactory() registry.SenderFactory {
	return registry.Sender(FactoryType, "sends to AMQP 1.0 addresses, waiting for each delivery's outcome",
		func(_ context.Context, cfg SenderConfig, d registry.Settings) (ports.Sender, error) {
			s, err := registry.SessionAs[*Session](d, FactoryType)
			if err != nil {
				return nil, err
			}
			return NewSender(s, cfg, factoryOptions(d)...)
		})
}
