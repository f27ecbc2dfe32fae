package transform

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// Transformer is the transform processor. It implements ports.Processor,
// is immutable after New and safe for concurrent use.
type Transformer struct {
	name         string
	c            *compiled
	mappings     []FieldMapping // as configured, for messages
	dropUnmapped bool
	failOnError  bool
	maxPayload   int
	errTooLarge  *fault.BridgeError
	m            metrics
	log          *slog.Logger
	states       sync.Pool // of *state: per-message scratch space
}

// state is the scratch space of one message, reused across messages.
type state struct {
	t       *Transformer
	c       *compiled
	ctx     context.Context
	payload []byte
	vals    []span   // per source slot
	results []result // per mapping
	has     []bool   // per target node
	seen    []bool   // per target node
	members []member
	scratch []byte // converted values
	tmp     []byte // decoded strings
	buf     []byte // the output being built
}

// New validates cfg (see Config.Validate) and returns the processor. Its
// counters are bound to the meter here, once.
func New(cfg Config, opts ...Option) (*Transformer, error) {
	c, err := cfg.compile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.WithDefaults()
	o := buildOptions(opts)
	t := &Transformer{
		name:         cfg.Name,
		c:            c,
		mappings:     append([]FieldMapping(nil), cfg.Mappings...),
		dropUnmapped: cfg.DropUnmapped,
		failOnError:  cfg.FailOnError,
		maxPayload:   cfg.MaxPayloadBytes,
		errTooLarge: fault.ErrPayloadTooLarge.
			WithMessage(fmt.Sprintf("transform %q: payload exceeds %d bytes", cfg.Name, cfg.MaxPayloadBytes)).
			With("processor", cfg.Name).
			With("limit", cfg.MaxPayloadBytes),
		m:   newMetrics(o.meter, cfg.Name),
		log: o.log,
	}
	t.states.New = func() any {
		return &state{
			t:       t,
			c:       c,
			vals:    make([]span, c.slots),
			results: make([]result, len(c.maps)),
			has:     make([]bool, c.nodes),
			seen:    make([]bool, c.nodes),
		}
	}
	return t, nil
}

// Name returns the processor name.
func (t *Transformer) Name() string { return t.name }

// Process rewrites env's payload according to the mappings, installs the
// result as a new payload and calls next. Headers are left alone. On error
// the envelope is unchanged and next is not called; every error is of the
// rejected class (see the package documentation).
func (t *Transformer) Process(ctx context.Context, env *messaging.Envelope, next ports.ProcessorFunc) error {
	if env == nil {
		t.m.rejected.Add(1)
		return fault.ErrInvalidPayload.WithMessage(fmt.Sprintf("transform %q: no envelope", t.name)).With("processor", t.name)
	}
	out, err := t.apply(ctx, env.PayloadView())
	if err != nil {
		t.m.rejected.Add(1)
		if t.log.Enabled(ctx, slog.LevelDebug) {
			t.log.LogAttrs(ctx, slog.LevelDebug, "transform refused message",
				slog.String("processor", t.name), slog.String("message_id", env.ID), slog.Any("error", err))
		}
		return err
	}
	env.SetPayload(out)
	t.m.transformed.Add(1)
	return next(ctx, env)
}

// apply returns the transformed copy of payload.
func (t *Transformer) apply(ctx context.Context, payload []byte) ([]byte, error) {
	if len(payload) > t.maxPayload {
		return nil, t.errTooLarge.With("size", len(payload))
	}
	st := t.states.Get().(*state)
	defer t.release(st)
	st.payload, st.ctx = payload, ctx
	var members *[]member
	st.members = st.members[:0]
	if !t.dropUnmapped {
		members = &st.members
	}
	ok, at := scan(payload, t.c.sources, st.vals, members)
	if !ok {
		return nil, fault.ErrInvalidPayload.
			WithMessage(fmt.Sprintf("transform %q: payload is not valid JSON (error at byte %d)", t.name, at)).
			With("processor", t.name)
	}
	root := skipSpace(payload)
	if !t.dropUnmapped && payload[root] != '{' {
		return nil, fault.ErrSchemaViolation.
			WithMessage(fmt.Sprintf("transform %q: payload is %s, not an object, so fields cannot be added to it", t.name, kindOf(payload[root:]))).
			With("processor", t.name)
	}
	if err := st.resolve(); err != nil {
		return nil, err
	}
	st.markWritten()
	var err error
	if t.dropUnmapped {
		st.buf = st.fresh(st.buf[:0], t.c.targets)
	} else {
		st.buf, err = st.merge(st.buf[:0], 0, t.c.targets)
	}
	if err != nil {
		return nil, err
	}
	return append(make([]byte, 0, len(st.buf)), st.buf...), nil
}

// release returns st to the pool, dropping buffers that one huge message
// grew, so that the pool does not pin them.
func (t *Transformer) release(st *state) {
	const keep = 64 << 10
	st.payload, st.ctx = nil, nil
	if cap(st.buf) > keep || cap(st.scratch) > keep || cap(st.tmp) > keep || cap(st.members) > keep/16 {
		st.buf, st.scratch, st.tmp, st.members = nil, nil, nil, nil
	}
	t.states.Put(st)
}

// resolve computes the output value of every mapping.
func (st *state) resolve() error {
	st.scratch = st.scratch[:0]
	for i, cm := range st.c.maps {
		v := st.vals[cm.slot]
		switch {
		case v.kind == kMissing && cm.def != nil:
			st.results[i] = result{from: fromDefault}
		case v.kind == kMissing && cm.required:
			return st.t.mappingError(i, "source not found and no default")
		case v.kind == kMissing:
			st.results[i] = result{}
		case cm.conv == TransformNone:
			st.results[i] = result{from: fromPayload, start: v.start, end: v.end}
		default:
			start := len(st.scratch)
			var err error
			st.scratch, st.tmp, err = convert(st.scratch, st.tmp, cm.conv, st.payload, v)
			if err != nil {
				st.scratch = st.scratch[:start]
				if cm.required || st.t.failOnError {
					return st.t.mappingError(i, fmt.Sprintf("cannot apply %s: %v", cm.conv, err))
				}
				st.results[i] = result{}
				st.skip(i, err.Error())
				continue
			}
			st.results[i] = result{from: fromScratch, start: start, end: len(st.scratch)}
		}
	}
	return nil
}

// skip counts (and at debug level logs) a mapping left out.
func (st *state) skip(i int, why string) {
	t := st.t
	t.m.skipped.Add(1)
	if t.log.Enabled(st.ctx, slog.LevelDebug) {
		m := t.mappings[i]
		t.log.LogAttrs(st.ctx, slog.LevelDebug, "transform skipped mapping",
			slog.String("processor", t.name), slog.Int("mapping", i),
			slog.String("source", m.Source), slog.String("target", m.Target), slog.String("reason", why))
	}
}

// mappingError is the rejected error for mapping i.
func (t *Transformer) mappingError(i int, why string) error {
	m := t.mappings[i]
	return fault.ErrSchemaViolation.
		WithMessage(fmt.Sprintf("transform %q: mappings[%d] (%s -> %s): %s", t.name, i, m.Source, m.Target, why)).
		With("processor", t.name).
		With("mapping", i)
}

// skipSpace returns the index of the first non-whitespace byte of b.
func skipSpace(b []byte) int {
	s := scanner{b: b}
	s.ws()
	return s.i
}
