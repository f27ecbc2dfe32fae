package circuitbreaker

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/gobridge-oss/gobridge/core/clock"
	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/telemetry"
	"github.com/gobridge-oss/gobridge/processors/circuitbreaker/breaker"
)

// State is a breaker state; see the breaker package.
type State = breaker.State

// The breaker states, repeated here so that most programs need to import
// only this package.
const (
	Closed   = breaker.Closed
	Open     = breaker.Open
	HalfOpen = breaker.HalfOpen
)

// BreakerMetrics is a snapshot of one breaker's counters.
type BreakerMetrics = breaker.Metrics

// Processor is the circuit breaker processor. It implements
// ports.Processor and is safe for concurrent use.
type Processor struct {
	cfg      Config
	bcfg     breaker.Config
	classify Classifier
	keyOf    KeyExtractor
	clk      ports.Clock
	log      *slog.Logger
	onChange func(key string, from, to State)
	inst     *instruments
	single   *entry // the one breaker when keyed globally by Config
	cache    *cache
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
	p := &Processor{
		cfg:      cfg,
		bcfg:     cfg.Breaker(),
		classify: o.classify,
		keyOf:    o.keyOf,
		clk:      o.clk,
		log:      o.log,
		onChange: o.onChange,
	}
	if p.classify == nil {
		p.classify = DefaultClassifier
	}
	if p.clk == nil {
		p.clk = clock.System()
	}
	if p.log == nil {
		p.log = slog.Default()
	}
	if o.meter == nil {
		o.meter = telemetry.Noop()
	}
	if o.metricKeys <= 0 {
		o.metricKeys = DefaultMetricKeyCardinality
	}
	if o.maxBreakers <= 0 {
		o.maxBreakers = DefaultMaxBreakers
	}
	p.inst = newInstruments(o.meter, cfg.Name, o.metricKeys)
	p.cache = newCache(o.maxBreakers, p.inst, p.newEntry)
	if p.keyOf == nil {
		switch cfg.Key {
		case KeySubject:
			p.keyOf = SubjectKey
		case KeyHeader:
			p.keyOf = HeaderKey(cfg.HeaderKey)
		default:
			// One breaker for everything: skip the cache on the hot path.
			p.single = p.newEntry(GlobalKey(nil))
		}
	}
	return p, nil
}

// newEntry builds the breaker of key, wired to the processor's clock,
// callbacks and instruments.
func (p *Processor) newEntry(key string) *entry {
	e := &entry{key: key, inst: p.inst.forKey(key)}
	// bcfg was validated by New, so breaker.New cannot fail here.
	e.b, _ = breaker.New(p.bcfg, breaker.WithKey(key), breaker.WithClock(p.clk),
		breaker.WithOnStateChange(func(tr breaker.Transition) { p.changed(e, tr) }))
	return e
}

// Name returns the processor's configured name.
func (p *Processor) Name() string { return p.cfg.Name }

// Config returns the configuration with defaults applied.
func (p *Processor) Config() Config { return p.cfg }

// Process asks the message's breaker for admission. When the breaker
// refuses, it returns fault.ErrUnavailable with the time left before
// probing as the retry hint, without calling next. Otherwise it calls next
// and records the result: nil is a success, an error the classifier
// accepts is a failure, and anything else (or a panic, or a cancellation
// of ctx) is ignored by the breaker.
func (p *Processor) Process(ctx context.Context, env *messaging.Envelope, next ports.ProcessorFunc) error {
	e := p.single
	if e == nil {
		e = p.cache.acquire(p.keyOf(env))
		defer p.cache.release(e)
	}
	tok, err := e.b.Allow()
	if err != nil {
		e.inst.rejections.Add(1)
		return p.refusal(e.key, err)
	}
	return p.call(ctx, env, next, e.b, tok)
}

// call runs next and records its outcome, even when next panics.
func (p *Processor) call(ctx context.Context, env *messaging.Envelope, next ports.ProcessorFunc,
	b *breaker.Breaker, tok breaker.Token) error {
	outcome := breaker.Ignored
	defer func() { b.Record(tok, outcome) }()
	err := next(ctx, env)
	outcome = p.outcomeOf(ctx, err)
	return err
}

func (p *Processor) outcomeOf(ctx context.Context, err error) breaker.Outcome {
	switch {
	case err == nil:
		return breaker.Success
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		// The bridge stopped working on the message (shutdown, client
		// gone); that says nothing about the dependency.
		return breaker.Ignored
	case p.classify(err):
		return breaker.Failure
	default:
		return breaker.Ignored
	}
}

// refusal turns a breaker's RejectError into the error the route sees.
func (p *Processor) refusal(key string, err error) error {
	msg := "circuit breaker open"
	var re *breaker.RejectError
	var wait time.Duration
	state := Open
	if errors.As(err, &re) {
		wait, state = re.RetryAfter, re.State
		if state == HalfOpen {
			msg = "circuit breaker half-open and all probe slots are busy"
		}
	}
	return fault.ErrUnavailable.WithMessage(msg).WithRetryAfter(wait).
		With("processor", p.cfg.Name).With("breaker_key", key).With("breaker_state", state.String()).
		Wrap(err)
}

// changed is every breaker's transition callback.
func (p *Processor) changed(e *entry, tr breaker.Transition) {
	e.inst.changed(tr.From, tr.To)
	level := slog.LevelInfo
	if tr.To == breaker.Open {
		level = slog.LevelWarn
	}
	p.log.LogAttrs(context.Background(), level, "circuit breaker state changed",
		slog.String("processor", p.cfg.Name), slog.String("key", tr.Key),
		slog.String("from", tr.From.String()), slog.String("to", tr.To.String()),
		slog.Uint64("generation", tr.Generation))
	if p.onChange != nil {
		p.onChange(tr.Key, tr.From, tr.To)
	}
}

// Metrics returns a snapshot of every breaker the processor holds, by key.
// Evicted breakers are not included.
func (p *Processor) Metrics() map[string]BreakerMetrics {
	if p.single != nil {
		return map[string]BreakerMetrics{p.single.key: p.single.b.Metrics()}
	}
	es := p.cache.entries()
	out := make(map[string]BreakerMetrics, len(es))
	for _, e := range es {
		out[e.key] = e.b.Metrics()
	}
	return out
}

// Stats describes the breaker cache. A processor keyed globally by its
// Config holds exactly one breaker outside the cache and reports Size 1.
func (p *Processor) Stats() Stats {
	if p.single != nil {
		return Stats{Size: 1, Capacity: p.cache.capacity}
	}
	return p.cache.stats()
}
