package httpsse

import (
	"context"
	"log/slog"

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
func factoryOptions(d registry.Settings) []Option {
	var opts []Option
	if d.ID != "" {
		opts = append(opts, WithName(d.ID))
	}
	opts = append(opts, WithLogger(d.Logger))
	opts = append(opts, WithMeter(d.Meter))
	return opts
}

// ReceiverFactory builds the HTTP ingress (`type: http`) from a
// ReceiverConfig settings block.
func ReceiverFactory() registry.ReceiverFactory {
	return registry.Receiver(ReceiverType, "HTTP ingress: POST requests become messages",
		func(_ context.Context, cfg ReceiverConfig, d registry.Settings) (ports.Receiver, error) {
			return NewReceiver(cfg, factoryOptions(d)...)
		})
}

// SSEFactory builds the server-sent events egress (`type: sse`) from an
// SSEConfig settings block. The channels' replay logs go to the bridge's
// store (Deps.StreamLog) unless replay_log says memory; without such a
// store, replay_log auto keeps them in memory and logs a warning, and
// replay_log store refuses to build.
func SSEFactory() registry.SenderFactory {
	return registry.Sender(SSEType, "server-sent events egress: browsers subscribe to channels",
		func(_ context.Context, cfg SSEConfig, d registry.Settings) (ports.Sender, error) {
			opts := factoryOptions(d)
			if d.StreamLog != nil {
				opts = append(opts, WithStreamLog(d.StreamLog))
			} else if cfg.WithDefaults().ReplayLog == ReplayLogAuto {
				logger := d.Logger
				if logger == nil {
					logger = slog.Default()
				}
				logger.Warn("sse sender keeps its replay log in memory: no configured store can hold it, so a restart loses every event not yet read",
					"sender", d.ID, "hint", "configure a sqlite store, or set replay_log: memory to say this is intended")
			}
			return NewSSESender(cfg, opts...)
		})
}

// WebhookFactory builds the webhook egress (`type: webhook`) from a
// WebhookConfig settings block.
func WebhookFactory() registry.SenderFactory {
	return registry.Sender(WebhookType, "webhook egress: POST each message to a URL",
		func(_ context.Context, cfg WebhookConfig, d registry.Settings) (ports.Sender, error) {
			return NewWebhookSender(cfg, factoryOptions(d)...)
		})
}
