package registry

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// Registry holds the factories a distro bundles, by kind and type name.
// Fill it once at start-up; it is safe for concurrent reads afterwards.
type Registry struct {
	receivers  map[string]ReceiverFactory
	senders    map[string]SenderFactory
	sessions   map[string]SessionFactory
	processors map[string]ProcessorFactory
	stores     map[string]StoreFactory
	tracers    map[string]TracerFactory
}

// New returns an empty registry.
func New() *Registry {
	return &Registry{
		receivers:  map[string]ReceiverFactory{},
		senders:    map[string]SenderFactory{},
		sessions:   map[string]SessionFactory{},
		processors: map[string]ProcessorFactory{},
		stores:     map[string]StoreFactory{},
		tracers:    map[string]TracerFactory{},
	}
}

// Add registers factories. Two factories of the same kind and type name are
// a programming error, reported with both names.
func (r *Registry) Add(fs ...Factory) error {
	var errs []string
	for _, f := range fs {
		var dup bool
		switch f := f.(type) {
		case ReceiverFactory:
			dup = put(r.receivers, f)
		case SenderFactory:
			dup = put(r.senders, f)
		case SessionFactory:
			dup = put(r.sessions, f)
		case ProcessorFactory:
			dup = put(r.processors, f)
		case StoreFactory:
			dup = put(r.stores, f)
		case TracerFactory:
			dup = put(r.tracers, f)
		default:
			errs = append(errs, fmt.Sprintf("factory %q of kind %s has no Build method of its kind", f.Type(), f.Kind()))
			continue
		}
		if dup {
			errs = append(errs, fmt.Sprintf("%s type %q registered twice", f.Kind(), f.Type()))
		}
	}
	if len(errs) > 0 {
		return fault.ErrInvalidConfig.WithMessage("registry: " + strings.Join(errs, "; "))
	}
	return nil
}

func put[F Factory](m map[string]F, f F) (dup bool) {
	if _, ok := m[f.Type()]; ok {
		return true
	}
	m[f.Type()] = f
	return false
}

// Receiver returns the receiver factory of typ.
func (r *Registry) Receiver(typ string) (ReceiverFactory, bool) {
	f, ok := r.receivers[typ]
	return f, ok
}

// Sender returns the sender factory of typ.
func (r *Registry) Sender(typ string) (SenderFactory, bool) { f, ok := r.senders[typ]; return f, ok }

// Session returns the session factory of typ.
func (r *Registry) Session(typ string) (SessionFactory, bool) { f, ok := r.sessions[typ]; return f, ok }

// Processor returns the processor factory of typ.
func (r *Registry) Processor(typ string) (ProcessorFactory, bool) {
	f, ok := r.processors[typ]
	return f, ok
}

// Store returns the store factory of typ.
func (r *Registry) Store(typ string) (StoreFactory, bool) { f, ok := r.stores[typ]; return f, ok }

// Tracer returns the tracer factory of typ.
func (r *Registry) Tracer(typ string) (TracerFactory, bool) { f, ok := r.tracers[typ]; return f, ok }

// Lookup returns the factory of a kind and type, for decoding and schemas.
func (r *Registry) Lookup(k Kind, typ string) (Factory, bool) {
	switch k {
	case KindReceiver:
		f, ok := r.receivers[typ]
		return f, ok
	case KindSender:
		f, ok := r.senders[typ]
		return f, ok
	case KindSession:
		f, ok := r.sessions[typ]
		return f, ok
	case KindProcessor:
		f, ok := r.processors[typ]
		return f, ok
	case KindStore:
		f, ok := r.stores[typ]
		return f, ok
	case KindTracer:
		f, ok := r.tracers[typ]
		return f, ok
	}
	return nil, false
}

// Types lists the type names registered for a kind, sorted.
func (r *Registry) Types(k Kind) []string {
	var out []string
	switch k {
	case KindReceiver:
		out = keys(r.receivers)
	case KindSender:
		out = keys(r.senders)
	case KindSession:
		out = keys(r.sessions)
	case KindProcessor:
		out = keys(r.processors)
	case KindStore:
		out = keys(r.stores)
	case KindTracer:
		out = keys(r.tracers)
	}
	return out
}

func keys[F any](m map[string]F) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Kinds lists every kind, in the order a configuration file declares them
// (the tracer's block, telemetry.tracing, comes last).
func Kinds() []Kind {
	return []Kind{KindSession, KindReceiver, KindSender, KindProcessor, KindStore, KindTracer}
}

// Decode finds the factory of k and typ and decodes settings with it. An
// unknown type is an error that lists the bundled ones.
func (r *Registry) Decode(k Kind, typ string, settings map[string]any) (any, error) {
	f, ok := r.Lookup(k, typ)
	if !ok {
		known := r.Types(k)
		if len(known) == 0 {
			return nil, fmt.Errorf("unknown %s type %q: this binary bundles no %s types", k, typ, k)
		}
		return nil, fmt.Errorf("unknown %s type %q; this binary bundles: %s", k, typ, strings.Join(known, ", "))
	}
	return f.Decode(settings)
}

func errWrongConfig(typ string, got, want any) error {
	return fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("factory %q was given a %T config, want %T", typ, got, want))
}
