package tenant

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// Processor is the tenant processor. It implements ports.Processor and is
// safe for concurrent use.
type Processor struct {
	cfg       Config
	validator TenantValidator
	tracker   TenantUsageTracker
	reader    TenantUsageReader // the tracker, when it can report usage
	inMemory  bool              // the tracker is a *MemoryTracker
	log       *slog.Logger
	inst      *instruments
}

var _ ports.Processor = (*Processor)(nil)

// New validates cfg, applies its defaults and builds the processor. Every
// configuration problem is reported at once as fault.ErrInvalidConfig.
func New(cfg Config, opts ...Option) (*Processor, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.WithDefaults()
	o := options{}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if o.meter == nil {
		o.meter = telemetry.Noop()
	}
	if o.log == nil {
		o.log = slog.Default()
	}
	p := &Processor{
		cfg:       cfg,
		validator: o.validator,
		tracker:   o.tracker,
		log:       o.log,
		inst:      newInstruments(o.meter, cfg.Name),
	}
	p.reader, _ = o.tracker.(TenantUsageReader)
	_, p.inMemory = o.tracker.(*MemoryTracker)
	return p, nil
}

// Name returns the processor's configured name.
func (p *Processor) Name() string { return p.cfg.Name }

// Config returns the configuration with defaults applied.
func (p *Processor) Config() Config { return p.cfg }

// Process resolves the message's tenant and, when the checks pass, calls
// next while the delivery is counted in flight for that tenant.
//
// Refusals: a malformed header or a missing one under RequireTenant is
// fault.ErrInvalidPayload; an inactive tenant is fault.ErrInvalidPayload;
// a payload above the tenant's cap is fault.ErrPayloadTooLarge; a tenant at
// its in-flight ceiling is the transient fault.ErrTenantQuotaExceeded. A
// message without a tenant ID passes untouched when RequireTenant is off.
func (p *Processor) Process(ctx context.Context, env *messaging.Envelope, next ports.ProcessorFunc) error {
	var raw any
	if env != nil {
		raw = env.Headers[p.cfg.TenantHeader]
	}
	id, problem := tenantID(raw)
	if problem != "" {
		return p.reject(ReasonMalformed, fault.ErrInvalidPayload,
			fmt.Sprintf("tenant header %q: %s", p.cfg.TenantHeader, problem), "")
	}
	if id == "" {
		if p.cfg.RequireTenant {
			return p.reject(ReasonMissingRequired, fault.ErrInvalidPayload,
				fmt.Sprintf("tenant ID required: header %q is missing or empty", p.cfg.TenantHeader), "")
		}
		p.inst.untenanted.Add(1)
		return next(ctx, env)
	}
	var info TenantInfo
	if p.validator != nil {
		var err error
		if info, err = p.validator.Validate(ctx, id); err != nil {
			return p.validatorFailed(id, err)
		}
		if !info.Active {
			return p.reject(ReasonInactive, fault.ErrInvalidPayload,
				fmt.Sprintf("tenant %q is not active", id), id)
		}
		if n := int64(env.PayloadLen()); info.MaxMessageSizeBytes > 0 && n > info.MaxMessageSizeBytes {
			return p.reject(ReasonPayloadTooLarge, fault.ErrPayloadTooLarge,
				fmt.Sprintf("payload of %d bytes exceeds the %d-byte limit of tenant %q", n, info.MaxMessageSizeBytes, id), id)
		}
	}
	if p.tracker == nil {
		return next(ctx, env)
	}
	if err := p.checkQuota(ctx, id, info); err != nil {
		return err
	}
	return p.tracked(ctx, env, next, id)
}

// reject counts a refusal and builds its error.
func (p *Processor) reject(reason string, base *fault.BridgeError, msg, id string) error {
	p.inst.rejected(reason)
	e := base.WithMessage(msg).With("processor", p.cfg.Name).With("header", p.cfg.TenantHeader).
		With("reason", reason)
	if id != "" {
		e = e.With("tenant", id)
	}
	return e
}

// validatorFailed maps a validator error. A recoverable one (transient or
// of unknown origin) becomes a transient UNAVAILABLE so the message is
// retried; any other keeps the class the validator chose.
func (p *Processor) validatorFailed(id string, err error) error {
	p.inst.rejected(ReasonValidatorError)
	if fault.IsRecoverable(err) {
		return fault.ErrUnavailable.WithMessage(fmt.Sprintf("tenant validator failed for %q", id)).
			With("processor", p.cfg.Name).With("tenant", id).With("reason", ReasonValidatorError).Wrap(err)
	}
	return fmt.Errorf("tenant %q refused by validator: %w", id, err)
}

func (p *Processor) usageFailed(ctx context.Context, op, id string, err error) {
	p.inst.usageFailed(op)
	p.log.LogAttrs(ctx, slog.LevelWarn, "tenant usage tracker call failed; continuing without it",
		slog.String("processor", p.cfg.Name), slog.String("op", op),
		slog.String("tenant", id), slog.Any("err", err))
}
