package httpsse

import (
	"context"

	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/registry"
)

// Type names of this module's components in configuration files.
const (
	ReceiverType = "http"
	SSEType      = "sse"
	WebhookType  = "webhook"
)

// factoryOptions turns registry dependencies into Options.
func factoryOptions(d registry.Deps) []Option {
	var opts []Option
	if d.ID != "" {
		opts = append(opts, WithName(d.ID))
	}
	if d.Logger != nil {
		opts = append(opts, WithLogger(d.Logger))
	}
	if d.Meter != nil {
		opts = append(opts, WithMeter(d.Meter))
	}
	return opts
}

// ReceiverFactory builds the HTTP ingress (`type: http`) from a
// ReceiverConfig settings block.
func ReceiverFactory() registry.ReceiverFactory {
	return registry.Receiver(ReceiverType, "HTTP ingress: POST requests become messages",
		func(_ context.Context, cfg ReceiverConfig, d registry.Deps) (ports.Receiver, error) {
			return NewReceiver(cfg, factoryOptions(d)...)
		})
}

// SSEFactory builds the server-sent events egress (`type: sse`) from an
// SSEConfig settings block.
func SSEFactory() registry.SenderFactory {
	return registry.Sender(SSEType, "server-sent events egress: browsers subscribe to channels",
		func(_ context.Context, cfg SSEConfig, d registry.Deps) (ports.Sender, error) {
			return NewSSESender(cfg, factoryOptions(d)...)
		})
}

// WebhookFactory builds the webhook egress (`type: webhook`) from a
// WebhookConfig settings block.
func WebhookFactory() registry.SenderFactory {
	return registry.Sender(WebhookType, "webhook egress: POST each message to a URL",
		func(_ context.Context, cfg WebhookConfig, d registry.Deps) (ports.Sender, error) {
			return NewWebhookSender(cfg, factoryOptions(d)...)
		})
}
