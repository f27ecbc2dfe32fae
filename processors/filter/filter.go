package filter

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/routing"
)

// Filter is the filter processor. It implements ports.Processor, is
// immutable after New and safe for concurrent use.
type Filter struct {
	name         string
	action       Action
	invert       bool
	matcher      *routing.Matcher
	readsPayload bool
	maxPayload   int
	routeTo      any // RouteTo, boxed once so that setting the header does not allocate
	errFiltered  error
	errTooLarge  *fault.BridgeError
	m            metrics
	log          *slog.Logger
}

// New validates cfg (see Config.Validate), compiles its conditions and
// returns the filter. Its counters are bound to the meter here, once.
func New(cfg Config, opts ...Option) (*Filter, error) {
	matcher, err := cfg.compile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.WithDefaults()
	o := buildOptions(opts)
	f := &Filter{
		name:       cfg.Name,
		action:     cfg.Action,
		invert:     cfg.Invert,
		matcher:    matcher,
		maxPayload: cfg.MaxPayloadBytes,
		routeTo:    cfg.RouteTo,
		errFiltered: fault.ErrMessageFiltered.
			WithMessage(fmt.Sprintf("message filtered by %q", cfg.Name)).
			With("processor", cfg.Name),
		errTooLarge: fault.ErrPayloadTooLarge.
			WithMessage(fmt.Sprintf("filter %q: payload exceeds %d bytes", cfg.Name, cfg.MaxPayloadBytes)).
			With("processor", cfg.Name).
			With("limit", cfg.MaxPayloadBytes),
		m:   newMetrics(o.meter, cfg.Name),
		log: o.log,
	}
	for _, c := range cfg.Conditions {
		if strings.HasPrefix(c.Field, "$") {
			f.readsPayload = true
		}
	}
	return f, nil
}

// Name returns the processor name.
func (f *Filter) Name() string { return f.name }

// Process evaluates the conditions on env and applies the action: it calls
// next for a message that continues and returns the filtered error
// (fault.ErrMessageFiltered) for one it discards. A route action sets
// messaging.HeaderRouteOverride, replacing any earlier value, before
// calling next.
//
// When a condition reads the payload and the payload is larger than the
// cap, Process returns a rejected fault.ErrPayloadTooLarge without
// evaluating anything. Conditions on subject and headers do not allocate.
func (f *Filter) Process(ctx context.Context, env *messaging.Envelope, next ports.ProcessorFunc) error {
	f.m.evaluated.Add(1)
	if env == nil {
		f.m.rejected.Add(1)
		return fault.ErrInvalidPayload.WithMessage(fmt.Sprintf("filter %q: no envelope", f.name))
	}
	if f.readsPayload && env.PayloadLen() > f.maxPayload {
		f.m.rejected.Add(1)
		f.debug(ctx, "filter refused oversized payload", env)
		return f.errTooLarge.With("size", env.PayloadLen())
	}
	in := routing.NewInput(env)
	hit := f.matcher.Match(&in) != f.invert
	switch f.action {
	case ActionPass:
		if !hit {
			return f.drop(ctx, env)
		}
	case ActionDrop:
		if hit {
			return f.drop(ctx, env)
		}
	case ActionRoute:
		if hit {
			env.SetHeader(messaging.HeaderRouteOverride, f.routeTo)
			f.m.routed.Add(1)
			f.debug(ctx, "filter rerouted message", env)
			return next(ctx, env)
		}
	}
	f.m.passed.Add(1)
	return next(ctx, env)
}

func (f *Filter) drop(ctx context.Context, env *messaging.Envelope) error {
	f.m.dropped.Add(1)
	f.debug(ctx, "filter dropped message", env)
	return f.errFiltered
}

// debug logs one decision when debug logging is on.
func (f *Filter) debug(ctx context.Context, msg string, env *messaging.Envelope) {
	if f.log.Enabled(ctx, slog.LevelDebug) {
		f.log.LogAttrs(ctx, slog.LevelDebug, msg,
			slog.String("processor", f.name),
			slog.String("message_id", env.ID),
			slog.String("action", string(f.action)))
	}
}
