package config

import "time"

// File is one gobridge configuration file after loading: YAML, environment
// overrides and secrets merged, defaults applied. The yaml tag of each field
// is its key in the file.
type File struct {
	// Bridge identifies this bridge and its deployment shape.
	Bridge Bridge `yaml:"bridge"`
	// Receivers are the message sources.
	Receivers []Component `yaml:"receivers"`
	// Senders are the message targets.
	Senders []Component `yaml:"senders"`
	// Sessions are the broker connections that receivers and senders share.
	Sessions []Component `yaml:"sessions"`
	// Bindings join a sender to a destination address.
	Bindings []Binding `yaml:"bindings"`
	// Routes connect a receiver, through processors, to bindings.
	Routes []Route `yaml:"routes"`
	// Processors declares processors by name; routes list these names.
	Processors map[string]Processor `yaml:"processors"`
	// Stores selects the outbox, DLQ and lease backends.
	Stores Stores `yaml:"stores"`
	// HTTP configures the admin and monitor API; nil runs neither.
	HTTP *HTTP `yaml:"http"`
	// Telemetry configures logging and metrics.
	Telemetry Telemetry `yaml:"telemetry"`

	// secrets records the paths of values that came from a ${env:} or
	// ${file:} reference, so Redacted can hide them.
	secrets map[string]bool
	// secretValues are the values those references resolved to, which
	// Scrub hides in messages.
	secretValues []string
	// loadWarnings are the risks seen while loading (a value that looks
	// like an unexpanded variable), which Validate reports.
	loadWarnings []Warning
}

// Deployment shapes accepted in Bridge.Deployment.
const (
	DeploymentStandalone = "standalone"
	DeploymentClustered  = "clustered"
)

// DefaultShutdownTimeout is the default Bridge.ShutdownTimeout.
const DefaultShutdownTimeout = 30 * time.Second

// Bridge identifies the bridge process.
type Bridge struct {
	// ID names the bridge; it is required.
	ID string `yaml:"id"`
	// Deployment is standalone (the default) or clustered.
	Deployment string `yaml:"deployment" enum:"standalone,clustered"`
	// InstanceID names this process, and is the lease owner in a cluster.
	// It defaults to the host name.
	InstanceID string `yaml:"instance_id"`
	// ShutdownTimeout bounds the graceful drain on stop (30s).
	ShutdownTimeout time.Duration `yaml:"shutdown_timeout"`
	// Cluster says how the members of a clustered deployment take a live
	// reload; only a clustered deployment accepts it.
	Cluster *Cluster `yaml:"cluster"`
}

// Component is a receiver, sender or session: an ID, a plugin type and the
// plugin's own settings, which the registry decodes and checks.
type Component struct {
	// ID names the component; references use it.
	ID string `yaml:"id"`
	// Type selects the plugin, for example mqtt or sqs.
	Type string `yaml:"type"`
	// SessionID optionally names the session the component runs on.
	SessionID string `yaml:"session_id"`
	// Settings is the plugin's block, kept as decoded from YAML.
	Settings map[string]any `yaml:"settings"`
}

// Binding joins a sender to a default destination address.
type Binding struct {
	// ID names the binding; routes list it.
	ID string `yaml:"id"`
	// SenderID names the sender; it is required.
	SenderID string `yaml:"sender_id"`
	// SessionID optionally names the session of the sender.
	SessionID string `yaml:"session_id"`
	// Address is the transport destination (topic, queue, URL path...).
	Address string `yaml:"address"`
	// DeliverAfter holds every message sent through this binding back from
	// the target's consumers for this long after the bridge sends it (SQS
	// delay seconds, Service Bus scheduled enqueue time). Zero sends for
	// immediate delivery. A sender that cannot delay refuses the binding
	// when the bridge starts.
	DeliverAfter time.Duration `yaml:"deliver_after"`
}

// Delivery and dispatch modes accepted in Route.
const (
	DeliveryDirectHold   = "direct_hold"
	DeliverySharedOutbox = "shared_outbox"
	DispatchSingle       = "single"
	DispatchFanOut       = "fan_out"
)

// Route is one message flow.
type Route struct {
	// ID names the route; it is required and unique.
	ID string `yaml:"id"`
	// ReceiverID names the source receiver; it is required.
	ReceiverID string `yaml:"receiver_id"`
	// DeliveryMode is direct_hold (default) or shared_outbox.
	DeliveryMode string `yaml:"delivery_mode" enum:"direct_hold,shared_outbox"`
	// DispatchMode is single (default) or fan_out.
	DispatchMode string `yaml:"dispatch_mode" enum:"single,fan_out"`
	// TrustBridgeHeaders keeps bridge-to-bridge x-bridge.* headers on
	// inbound messages; only for receivers fed by a trusted bridge.
	TrustBridgeHeaders bool `yaml:"trust_bridge_headers"`
	// Policy tunes retries, limits and terminal actions.
	Policy Policy `yaml:"policy"`
	// Bindings lists binding IDs; at least one is required.
	Bindings []string `yaml:"bindings"`
	// Processors lists processor names, outermost first.
	Processors []string `yaml:"processors"`
	// Resolver picks bindings by content; nil uses the dispatch mode.
	Resolver *Resolver `yaml:"resolver"`
	// Session manages the lease of an exclusive session for this route.
	Session *RouteSession `yaml:"session"`
}

// Terminal actions and ack points accepted in Policy.
const (
	ActionDrop          = "drop"
	ActionDLQ           = "dlq"
	AckTargetAccept     = "target_accept"
	AckOutboxPersist    = "outbox_persist"
	DefaultJitter       = 0.2
	DefaultMaxInFlight  = 100
	DefaultReplayBudget = 15 * time.Minute
)

// Policy tunes how a route handles and settles messages. Defaults are
// applied by Load and Parse; a zero number or duration means the default.
type Policy struct {
	// MaxInFlight bounds concurrent deliveries (100).
	MaxInFlight int `yaml:"max_in_flight"`
	// AckAfter is target_accept for direct_hold and outbox_persist for
	// shared_outbox (the default follows the delivery mode).
	AckAfter string `yaml:"ack_after" enum:"target_accept,outbox_persist"`
	// MaxReplayAttempts is the attempt half of the poison gate (5).
	MaxReplayAttempts int `yaml:"max_replay_attempts"`
	// ReplayBudget is the age half of the poison gate (15m).
	ReplayBudget time.Duration `yaml:"replay_budget"`
	// MaxOutboxDepth bounds undelivered outbox records (10000).
	MaxOutboxDepth int `yaml:"max_outbox_depth"`
	// OnExpired is drop or dlq (dlq).
	OnExpired string `yaml:"on_expired" enum:"drop,dlq"`
	// OnPermanentFailure is drop or dlq (dlq).
	OnPermanentFailure string `yaml:"on_permanent_failure" enum:"drop,dlq"`
	// OnFiltered is drop or dlq (drop).
	OnFiltered string `yaml:"on_filtered" enum:"drop,dlq"`
	// Backoff is the retry delay ladder.
	Backoff Backoff `yaml:"backoff"`
	// SendTimeout bounds each send (30s).
	SendTimeout time.Duration `yaml:"send_timeout"`
	// DepthCacheTTL is how long an outbox depth reading is reused (1s).
	DepthCacheTTL time.Duration `yaml:"depth_cache_ttl"`
	// AllowUnfenced accepts direct_hold on a shared consumer source.
	AllowUnfenced bool `yaml:"allow_unfenced"`
	// AllowRetryDrop accepts a source that cannot retry with no DLQ.
	AllowRetryDrop bool `yaml:"allow_retry_drop"`
}

// Backoff is an exponential retry ladder with equal jitter.
type Backoff struct {
	// InitialInterval is the first delay (1s).
	InitialInterval time.Duration `yaml:"initial_interval"`
	// MaxInterval caps every delay (30s).
	MaxInterval time.Duration `yaml:"max_interval"`
	// Multiplier grows the delay per attempt, at least 1 (2).
	Multiplier float64 `yaml:"multiplier"`
	// Jitter is the randomised fraction in [0,1]; nil means 0.2, and an
	// explicit 0 gives deterministic delays.
	Jitter *float64 `yaml:"jitter"`
}
