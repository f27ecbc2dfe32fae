package mqtt

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/registry"
)

// FactoryType is the type name of this module's session, receiver and
// sender in configuration files.
const FactoryType = "mqtt"

// factoryOptions turns registry dependencies into Options.
func factoryOptions(d registry.Settings) []Option {
	var opts []Option
	if d.ID != "" {
		opts = append(opts, WithName(d.ID))
	}
	opts = append(opts, WithLogger(d.Logger))
	opts = append(opts, WithMeter(d.Meter))
	if d.Subscriptions != nil {
		opts = append(opts, WithSubscriptionLedger(d.Subscriptions))
	}
	return opts
}

// SessionFactory builds MQTT sessions (`type: mqtt` under sessions) from a
// SessionConfig settings block.
func SessionFactory() registry.SessionFactory {
	return registry.Session(FactoryType, "an MQTT v5 connection shared by receivers and senders",
		func(_ context.Context, cfg SessionConfig, d registry.Settings) (ports.Session, error) {
			return NewSession(cfg, factoryOptions(d)...)
		})
}

// ReceiverFactory builds MQTT receivers (`type: mqtt` under receivers) on
// the session the entry's session_id names. It also implements
// registry.Admitter: every route it feeds is admitted per AdmitRoute.
func ReceiverFactory() registry.ReceiverFactory {
	return admittingReceiverFactory{receiverFactory()}
}

func receiverFactory() registry.ReceiverFactory {
	return registry.Receiver(FactoryType, "subscribes to MQTT topic filters",
		func(_ context.Context, cfg ReceiverConfig, d registry.Settings) (ports.Receiver, error) {
			s, err := registry.SessionAs[*Session](d, FactoryType)
			if err != nil {
				return nil, err
			}
			return NewReceiver(s, cfg, factoryOptions(d)...)
		})
}

// SenderFactory builds MQTT senders (`type: mqtt` under senders) on the
// session the entry's session_id names.
func SenderFactory() registry.SenderFactory {
	return registry.Sender(FactoryType, "publishes to MQTT topics",
		func(_ context.Context, cfg SenderConfig, d registry.Settings) (ports.Sender, error) {
			s, err := registry.SessionAs[*Session](d, FactoryType)
			if err != nil {
				return nil, err
			}
			return NewSender(s, cfg, factoryOptions(d)...)
		})
}

// admittingReceiverFactory adds the admission check of AdmitRoute to the
// receiver factory.
type admittingReceiverFactory struct{ registry.ReceiverFactory }

// Admit applies AdmitRoute to a route in either delivery mode.
func (admittingReceiverFactory) Admit(receiverCfg, sessionCfg any, route registry.RouteFacts) error {
	rc, ok := receiverCfg.(ReceiverConfig)
	if !ok {
		return nil
	}
	sc, _ := sessionCfg.(SessionConfig)
	err := AdmitRoute(sc, rc, RouteFacts{RouteID: route.RouteID, DeliveryMode: route.DeliveryMode,
		HasDLQ: route.HasDLQ, AllowRetryDrop: route.AllowRetryDrop})
	return errors.Join(append([]error{err}, admitClustered(rc, route)...)...)
}

// admitClustered applies the rule of a clustered deployment: every
// instance runs a route that does not wait for its lease, so each of its
// subscriptions must be shared ($share/...) or the broker delivers every
// message to every instance; a route that waits for its lease connects on
// one instance only, so a $share/ subscription there is a contradiction.
// Problems name the subscription's topic setting.
func admitClustered(rc ReceiverConfig, route registry.RouteFacts) []error {
	if !route.Clustered {
		return nil
	}
	var errs []error
	for j, s := range rc.Subscriptions {
		shared := strings.HasPrefix(s.Topic, "$share/")
		path := fmt.Sprintf("subscriptions[%d].topic", j)
		switch {
		case s.Topic == "":
		case route.Exclusive && shared:
			errs = append(errs, &registry.SettingProblem{Path: path,
				Message: "a $share/ subscription is a shared source, run on every instance: set connect_after_lease: false on its route's session"})
		case !route.Exclusive && !shared:
			errs = append(errs, &registry.SettingProblem{Path: path, Message: "requires $share/ topic prefix or exclusive session"})
		}
	}
	return errs
}
