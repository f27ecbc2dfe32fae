package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// Backend is what the HTTP APIs report on and act upon. The composition
// root implements it; every method must be safe for concurrent use.
type Backend interface {
	// Status describes the bridge process.
	Status(ctx context.Context) Status
	// Routes lists every configured route with its current state.
	Routes(ctx context.Context) []RouteStatus
	// Readiness reports the readiness level reached and the lease role.
	Readiness(ctx context.Context) Readiness
	// DeepHealth reports the health of each component.
	DeepHealth(ctx context.Context) DeepHealth
	// DLQ returns the dead-letter store, or nil when none is configured.
	DLQ() ports.DLQStore
	// Redrive sends a dead-lettered message through its route again and
	// returns the new message's ID (see runtime.Runtime.Redrive: newID can
	// be set together with an error when the message failed again).
	Redrive(ctx context.Context, entryID string) (newID string, err error)
	// Config returns the running configuration with secrets redacted.
	Config(ctx context.Context) map[string]any
	// ValidateConfig checks a YAML document without applying it.
	ValidateConfig(ctx context.Context, yaml []byte) ValidationResult
	// Reload applies a YAML document, or re-reads the configuration file
	// when yaml is empty. A refused document yields an error with code
	// INVALID_CONFIG and, ideally, ReloadResult.Problems.
	Reload(ctx context.Context, yaml []byte) (ReloadResult, error)
	// Metrics serves the Prometheus text exposition; nil disables it.
	Metrics() http.Handler
}

// Status describes the running bridge process.
type Status struct {
	BridgeID   string
	InstanceID string
	// Deployment is "standalone" or "clustered".
	Deployment string
	Version    string
	StartedAt  time.Time
	// Uptime is computed from StartedAt when left zero.
	Uptime time.Duration
	// Role is one of RoleStandalone, RoleActive or RoleStandby.
	Role             string
	RouteCount       int
	ConfigGeneration int
}

// Route states reported in RouteStatus.State.
const (
	RouteRunning = "running"
	RouteStopped = "stopped"
	RouteFailed  = "failed"
	// RouteStandby: an exclusive route waiting, on a standby instance,
	// for its session's lease before its source connects.
	RouteStandby = "standby"
)

// RouteStatus is the state of one route.
type RouteStatus struct {
	ID           string   `json:"id"`
	ReceiverID   string   `json:"receiver_id"`
	DeliveryMode string   `json:"delivery_mode"`
	DispatchMode string   `json:"dispatch_mode"`
	Bindings     []string `json:"bindings"`
	// State is RouteRunning, RouteStopped, RouteFailed or RouteStandby.
	State     string `json:"state"`
	InFlight  int    `json:"in_flight"`
	LastError string `json:"last_error,omitempty"`
	// Role is the route's lease role: RoleStandalone when no lease fences
	// it, RoleActive while this instance holds one of its leases,
	// RoleStandby otherwise. Empty when the backend does not know.
	Role string `json:"role,omitempty"`
	// Generation is the configuration generation whose load or reload
	// built the route's current runtime: a reload that leaves the route
	// alone keeps it, one that restarts the route raises it.
	Generation int `json:"generation,omitempty"`
}

// Readiness levels, in increasing order.
const (
	LevelNone       = "none"
	LevelConnected  = "connected"
	LevelSubscribed = "subscribed"
	LevelFull       = "full"
)

// Lease roles of an instance.
const (
	// RoleStandalone: no exclusive session is configured.
	RoleStandalone = "standalone"
	// RoleActive: this instance holds at least one exclusive session's lease.
	RoleActive = "active"
	// RoleStandby: exclusive sessions are configured but no lease is held.
	RoleStandby = "standby"
)

// Readiness is the readiness level the bridge reached and its lease role.
type Readiness struct {
	// Level is LevelNone, LevelConnected, LevelSubscribed or LevelFull.
	Level string
	// Role is RoleStandalone, RoleActive or RoleStandby. A standby is
	// never reported above LevelSubscribed, whatever Level says.
	Role   string
	Detail string
}

// Component health states.
const (
	HealthUp       = "up"
	HealthDegraded = "degraded"
	HealthDown     = "down"
)

// Component is the health of one part of the bridge.
type Component struct {
	// Kind is "session", "store", "route", "receiver", "lease" or
	// "rollout" (a clustered bridge's rollout mode, as ID).
	Kind string `json:"kind"`
	ID   string `json:"id"`
	// Status is HealthUp, HealthDegraded or HealthDown.
	Status string `json:"status"`
	Detail string `json:"detail,omitempty"`
}

// DeepHealth is the health of every component.
type DeepHealth struct {
	// Status is the overall state; when empty the server derives it as
	// the worst component state (up when there is none).
	Status     string
	Role       string
	Components []Component
	// RestartRequired names where the running process differs from its
	// configuration until a restart: settings a reload accepted that only
	// a restart applies, and the changes a clustered rollout refused.
	RestartRequired []string
}

// Problem is one finding about a configuration document.
type Problem struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// ValidationResult is the outcome of validating a configuration.
type ValidationResult struct {
	Valid    bool      `json:"valid"`
	Problems []Problem `json:"problems"`
	Warnings []Problem `json:"warnings"`
}

// ReloadResult reports what a reload changed.
type ReloadResult struct {
	Generation int      `json:"generation"`
	Added      []string `json:"added"`
	Removed    []string `json:"removed"`
	Changed    []string `json:"changed"`
	// RestartRequired lists accepted changes that take effect only after a
	// restart.
	RestartRequired []Problem `json:"restart_required"`
	// Problems explains a refused reload; it accompanies an error.
	Problems []Problem `json:"problems,omitempty"`
}
