package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/gobridge-oss/gobridge/core/clock"
	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// Kind names the role of a factory.
type Kind string

// The kinds of component a configuration file declares.
const (
	KindReceiver  Kind = "receiver"
	KindSender    Kind = "sender"
	KindSession   Kind = "session"
	KindProcessor Kind = "processor"
	KindStore     Kind = "store"
)

// Settings is what a factory gets to build a component with: its ID, the
// logger, meter and clock it reports through, the session it uses, and
// what the bridge knows about its place (data directory, route in-flight
// limit, stores it may use). Build fills the defaults once (WithDefaults),
// so a constructor never checks Logger, Meter or Clock for nil.
type Settings struct {
	// ID is the component's ID in the configuration file (for a
	// processor, its name).
	ID     string
	Logger *slog.Logger
	Meter  telemetry.Meter
	Clock  ports.Clock
	// Session is the built session the component's session_id names, or
	// nil. A factory type-asserts it to its own session type.
	Session ports.Session
	// DataDir is the directory relative store paths are resolved against.
	DataDir string
	// MaxInFlight is, for a receiver, the max_in_flight of the route it
	// feeds (0 when no route uses it), so that a transport can size its
	// prefetch or credit to what the route will take.
	MaxInFlight int
	// StreamLog is, for a sender, the bridge's configured store when that
	// store can hold per-channel replay logs, or nil. The SSE sender keeps
	// its channels' events in it.
	StreamLog ports.StreamLog
	// Subscriptions is, for a session, the configured
	// stores.managed_subscriptions store, or nil when none is configured.
	// A durable MQTT session records in it the subscriptions it made, so
	// that a later start unsubscribes those the configuration dropped.
	Subscriptions ports.SubscriptionLedger
}

// Factory is the part every factory shares: its type name, what it
// builds, and how its settings are read and described.
type Factory interface {
	// Kind says what the factory builds.
	Kind() Kind
	// Type is the name used in configuration files (`type: http`).
	Type() string
	// Doc is a one-line description for listings and the schema.
	Doc() string
	// Decode reads a settings block strictly and returns the typed,
	// defaulted and validated config.
	Decode(settings map[string]any) (any, error)
	// Schema describes the settings block as a JSON Schema object.
	Schema() json.RawMessage
}

// typed implements Factory for a config type C.
type typed[C any] struct {
	kind Kind
	typ  string
	doc  string
}

func (t typed[C]) Kind() Kind   { return t.kind }
func (t typed[C]) Type() string { return t.typ }
func (t typed[C]) Doc() string  { return t.doc }
func (t typed[C]) Decode(settings map[string]any) (any, error) {
	return decodeSettings[C](settings)
}
func (t typed[C]) Schema() json.RawMessage { return schemaOf[C](t.doc) }

// ReceiverFactory builds receivers.
type ReceiverFactory interface {
	Factory
	Build(ctx context.Context, cfg any, d Settings) (ports.Receiver, error)
}

// SenderFactory builds senders.
type SenderFactory interface {
	Factory
	Build(ctx context.Context, cfg any, d Settings) (ports.Sender, error)
}

// SessionFactory builds sessions.
type SessionFactory interface {
	Factory
	Build(ctx context.Context, cfg any, d Settings) (ports.Session, error)
}

// ProcessorFactory builds processors.
type ProcessorFactory interface {
	Factory
	Build(ctx context.Context, cfg any, d Settings) (ports.Processor, error)
}

// StoreFactory builds stores. The value it returns implements one or more
// of ports.OutboxStore, ports.DLQStore and ports.LeaseStore, and may
// implement ports.Closer (or io.Closer with a context-free Close).
type StoreFactory interface {
	Factory
	Build(ctx context.Context, cfg any, d Settings) (any, error)
}

type builder[C, T any] struct {
	typed[C]
	build func(ctx context.Context, cfg C, d Settings) (T, error)
}

func (b builder[C, T]) Build(ctx context.Context, cfg any, d Settings) (T, error) {
	c, ok := cfg.(C)
	if !ok {
		var zero T
		return zero, errWrongConfig(b.typ, cfg, c)
	}
	return b.build(ctx, c, d.WithDefaults())
}

// WithDefaults returns s with a logger that discards, a no-op meter and
// the system clock where s has none.
func (s Settings) WithDefaults() Settings {
	if s.Logger == nil {
		s.Logger = slog.New(slog.DiscardHandler)
	}
	if s.Meter == nil {
		s.Meter = telemetry.Noop()
	}
	if s.Clock == nil {
		s.Clock = clock.System()
	}
	return s
}

// Receiver returns a factory for receivers whose settings decode into C.
// C may implement WithDefaults() C and Validate() error.
func Receiver[C any](typ, doc string, build func(ctx context.Context, cfg C, d Settings) (ports.Receiver, error)) ReceiverFactory {
	return builder[C, ports.Receiver]{typed[C]{KindReceiver, typ, doc}, build}
}

// Sender returns a factory for senders whose settings decode into C.
func Sender[C any](typ, doc string, build func(ctx context.Context, cfg C, d Settings) (ports.Sender, error)) SenderFactory {
	return builder[C, ports.Sender]{typed[C]{KindSender, typ, doc}, build}
}

// Session returns a factory for sessions whose settings decode into C.
func Session[C any](typ, doc string, build func(ctx context.Context, cfg C, d Settings) (ports.Session, error)) SessionFactory {
	return builder[C, ports.Session]{typed[C]{KindSession, typ, doc}, build}
}

// Processor returns a factory for processors whose settings decode into C.
func Processor[C any](typ, doc string, build func(ctx context.Context, cfg C, d Settings) (ports.Processor, error)) ProcessorFactory {
	return builder[C, ports.Processor]{typed[C]{KindProcessor, typ, doc}, build}
}

// Store returns a factory for stores whose settings decode into C.
func Store[C any](typ, doc string, build func(ctx context.Context, cfg C, d Settings) (any, error)) StoreFactory {
	return builder[C, any]{typed[C]{KindStore, typ, doc}, build}
}

// RouteFacts is what a receiver factory's admission check may know about
// the route its receiver feeds.
type RouteFacts struct {
	RouteID string
	// DeliveryMode is direct_hold or shared_outbox.
	DeliveryMode string
	// HasDLQ is true when the bridge has a DLQ store.
	HasDLQ bool
	// AllowRetryDrop is the route's policy.allow_retry_drop.
	AllowRetryDrop bool
	// Clustered is true when the bridge's deployment is clustered: every
	// instance runs every route that does not wait for a lease.
	Clustered bool
	// Exclusive is true when the route's session block connects its
	// source only on the lease holder (connect_after_lease, the default
	// of a session block).
	Exclusive bool
}

// SettingProblem is an admission error about one receiver setting: Path
// is relative to the receiver's settings block (e.g.
// "subscriptions[0].topic"), so that validation reports it where the user
// wrote the value. Admit may return several, joined with errors.Join.
type SettingProblem struct {
	Path    string
	Message string
}

// Error implements error.
func (p *SettingProblem) Error() string { return p.Path + ": " + p.Message }

// Admitter is implemented by receiver factories whose transport admits a
// route only under conditions of its own (MQTT: QoS 1/2 subscriptions need
// a resuming session in either delivery mode). Admit gets the decoded receiver config,
// the decoded config of the session it names (nil without one), and the
// route's facts; an error refuses the configuration at load.
type Admitter interface {
	Admit(receiverCfg, sessionCfg any, route RouteFacts) error
}

// SessionAs returns the session a receiver or sender entry names as the
// transport's own session type S, or an INVALID_CONFIG error naming the
// component and the session type it needs (typ, as written in files).
func SessionAs[S ports.Session](d Settings, typ string) (S, error) {
	var zero S
	if d.Session == nil {
		return zero, fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("%s %s: session_id is required and must name a type: %s session", typ, d.ID, typ))
	}
	s, ok := d.Session.(S)
	if !ok {
		return zero, fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("%s %s: session_id names a %T, not a type: %s session", typ, d.ID, d.Session, typ))
	}
	return s, nil
}
