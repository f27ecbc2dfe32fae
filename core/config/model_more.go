package config

import "time"

// Route session defaults.
const (
	DefaultLeaseTTL      = 360 * time.Second
	DefaultMaxRenewFails = 3
	DefaultStepDownGrace = 15 * time.Second
	// MinLeaseTTL is the shortest accepted lease_ttl.
	MinLeaseTTL = 5 * time.Second
	// MinCadence is the floor of the resolved renew and acquire-poll
	// intervals.
	MinCadence = 250 * time.Millisecond
	// MaxStartupAllowance caps startup_allowance.
	MaxStartupAllowance = 10 * time.Minute
)

// RouteSession ties a route to an exclusive session: the lease that decides
// which instance drains, and how the outbox is drained. Durations left at
// zero marked "derived" are computed by Cadence.
type RouteSession struct {
	// SessionID names the exclusive session; required.
	SessionID string `yaml:"session_id"`
	// SenderID names the sender on that session; required.
	SenderID string `yaml:"sender_id"`
	// LeaseTTL is how long a lease is valid (360s, at least 5s).
	LeaseTTL time.Duration `yaml:"lease_ttl"`
	// RenewInterval is the renewal period (derived).
	RenewInterval time.Duration `yaml:"renew_interval"`
	// LeaseRenewJitter is random delay added to each renewal (derived).
	LeaseRenewJitter time.Duration `yaml:"lease_renew_jitter"`
	// MaxRenewFails is the number of failed renewals before step-down (3).
	MaxRenewFails int `yaml:"max_renew_fails"`
	// StepDownGrace is the wait before releasing the lease (15s).
	StepDownGrace time.Duration `yaml:"step_down_grace"`
	// DrainInterval is a fixed poll interval; exclusive with DrainStrategy.
	DrainInterval time.Duration `yaml:"drain_interval"`
	// DrainBatchSize is records per poll (100).
	DrainBatchSize int `yaml:"drain_batch_size"`
	// DrainMaxBatchSize caps adaptive batch growth (500).
	DrainMaxBatchSize int `yaml:"drain_max_batch_size"`
	// DrainMaxConcurrency bounds concurrent sends per poll (10).
	DrainMaxConcurrency int `yaml:"drain_max_concurrency"`
	// DrainStrategy paces the polls (adaptive_backoff by default).
	DrainStrategy *DrainStrategy `yaml:"drain_strategy"`
	// ConnectAfterLease defers the source connect until the lease is won
	// (true).
	ConnectAfterLease *bool `yaml:"connect_after_lease"`
	// RenewCallTimeout bounds one renew call (derived).
	RenewCallTimeout time.Duration `yaml:"renew_call_timeout"`
	// AcquirePollInterval is how often a standby retries (derived).
	AcquirePollInterval time.Duration `yaml:"acquire_poll_interval"`
	// BrokerHealthStepDown is how long an owner may stay unconverged on
	// its broker before releasing the lease; "off" disables it.
	BrokerHealthStepDown *OffDuration `yaml:"broker_health_step_down"`
	// FailoverSLO is an optional failover objective; must be positive.
	FailoverSLO *time.Duration `yaml:"failover_slo"`
	// StartupAllowance is added to a declared failover budget (0, <= 10m).
	StartupAllowance time.Duration `yaml:"startup_allowance"`
}

// OffDuration is a duration or the word "off".
type OffDuration struct {
	// Off is true when the value was "off".
	Off bool
	// Duration is the value when Off is false.
	Duration time.Duration
}

// Drain strategy types accepted in DrainStrategy.Type.
const (
	DrainFixedPoll       = "fixed_poll"
	DrainAdaptiveBackoff = "adaptive_backoff"
)

// DrainStrategy paces outbox polls.
type DrainStrategy struct {
	// Type is fixed_poll or adaptive_backoff; required.
	Type string `yaml:"type" enum:"fixed_poll,adaptive_backoff"`
	// Interval is the fixed_poll period.
	Interval time.Duration `yaml:"interval"`
	// MinInterval and MaxInterval bound adaptive_backoff.
	MinInterval time.Duration `yaml:"min_interval"`
	// MaxInterval is the longest adaptive_backoff wait.
	MaxInterval time.Duration `yaml:"max_interval"`
	// Multiplier grows the adaptive wait; must be above 1.
	Multiplier float64 `yaml:"multiplier"`
}

// Resolver types accepted in Resolver.Type.
const (
	ResolverRules     = "rules"
	ResolverHeaderMap = "header_map"
	ResolverAll       = "all"
	ResolverStatic    = "static"
)

// Resolver selects a route's bindings by message content.
type Resolver struct {
	// Type is rules, header_map, all or static; required.
	Type string `yaml:"type" enum:"rules,header_map,all,static"`
	// DefaultBinding is used when nothing matches.
	DefaultBinding string `yaml:"default_binding"`
	// HeaderKey is the header header_map looks up.
	HeaderKey string `yaml:"header_key"`
	// HeaderMap maps header values to binding IDs.
	HeaderMap map[string]string `yaml:"header_map"`
	// Rules are tried in order; the first match wins.
	Rules []Rule `yaml:"rules"`
}

// Rule selects BindingID when every condition holds.
type Rule struct {
	// BindingID must be one of the route's bindings.
	BindingID string `yaml:"binding_id"`
	// Match is ANDed; empty matches every message.
	Match []Condition `yaml:"match"`
}

// Condition is one test; see core/routing for fields and operators.
type Condition struct {
	// Field is subject, header.<k>, $.<path> or a bare header name.
	Field string `yaml:"field"`
	// Operator is eq ne prefix contains regex gt lt gte lte exists in.
	Operator string `yaml:"operator" enum:"eq,ne,prefix,contains,regex,gt,lt,gte,lte,exists,in"`
	// Value is compared against the field.
	Value any `yaml:"value"`
}

// Processor declares a processor in YAML: its plugin type and settings.
type Processor struct {
	// Type selects the processor plugin, for example filter.
	Type string `yaml:"type"`
	// Settings is the plugin's block, decoded by the registry.
	Settings map[string]any `yaml:"settings"`
}

// Stores selects a backend for each store role; nil means none.
type Stores struct {
	// Outbox is required by shared_outbox routes.
	Outbox *Store `yaml:"outbox"`
	// DLQ is required by every dlq action.
	DLQ *Store `yaml:"dlq"`
	// Lease is required by exclusive sessions.
	Lease *Store `yaml:"lease"`
	// ManagedSubscriptions records durable broker subscriptions.
	ManagedSubscriptions *Store `yaml:"managed_subscriptions"`
}

// Store is one backend: its plugin type and settings.
type Store struct {
	// Type selects the store plugin, for example sqlite.
	Type string `yaml:"type"`
	// Settings is the plugin's block, decoded by the registry.
	Settings map[string]any `yaml:"settings"`
}

// HTTP defaults. They stay clear of the HTTP ingress (:8080) and SSE
// egress (:8081) defaults, so a file that sets no address still starts.
const (
	DefaultAdminAddr   = ":9080"
	DefaultMonitorAddr = ":9081"
	// MinAPIKeyLength is the shortest accepted API key.
	MinAPIKeyLength = 16
)

// HTTP configures the admin and monitor listeners.
type HTTP struct {
	// AdminAddr is the admin listen address (DefaultAdminAddr, :9080).
	AdminAddr string `yaml:"admin_addr"`
	// MonitorAddr is the monitor listen address (DefaultMonitorAddr, :9081).
	MonitorAddr string `yaml:"monitor_addr"`
	// AdminAPIKey is required, at least 16 characters. A reload applies a
	// changed key at once.
	AdminAPIKey string `yaml:"admin_api_key" secret:"true"`
	// MonitorAPIKey is optional (the admin key works too).
	MonitorAPIKey string `yaml:"monitor_api_key" secret:"true"`
	// APIKeyOverlap is how long a key that a reload replaced is still
	// accepted, so that clients can switch over (0: refused at once).
	APIKeyOverlap time.Duration `yaml:"api_key_overlap"`
	// PostedConfigRefs lists the ${env:} and ${file:} references that a
	// document posted to the admin API may use, written "env:NAME" or
	// "file:/path". Empty refuses every reference in a posted document.
	// Only the configuration file the process reads from disk sets it.
	PostedConfigRefs []string `yaml:"posted_config_refs"`
	// CORSOrigins lists allowed origins; "*" is rejected.
	CORSOrigins []string `yaml:"cors_origins"`
	// TLSCertFile and TLSKeyFile enable HTTPS when both are set.
	TLSCertFile string `yaml:"tls_cert_file"`
	// TLSKeyFile is the private key of TLSCertFile.
	TLSKeyFile string `yaml:"tls_key_file"`
}

// Tracing names the tracer plugin and holds its settings block.
type Tracing struct {
	// Type names a tracer plugin bundled in the binary (otel in the
	// curated distro).
	Type string `yaml:"type"`
	// Settings is the plugin's block, decoded by the registry.
	Settings map[string]any `yaml:"settings"`
}

// Telemetry configures logs, metrics and traces.
type Telemetry struct {
	// LogLevel is debug, info (default), warn or error.
	LogLevel string `yaml:"log_level" enum:"debug,info,warn,error"`
	// LogFormat is text (default) or json.
	LogFormat string `yaml:"log_format" enum:"text,json"`
	// Metrics enables the Prometheus metrics (true).
	Metrics *bool `yaml:"metrics"`
	// Tracing, when set, exports trace spans through the tracer plugin it
	// names. Core reads only the type; the plugin decodes the settings.
	Tracing *Tracing `yaml:"tracing"`
}
