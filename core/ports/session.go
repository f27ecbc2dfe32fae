package ports

import (
	"context"
	"time"
)

// Session manages a long-lived transport connection shared by receivers and
// senders (MQTT, AMQP). Stateless transports do not use sessions.
type Session interface {
	// Start connects. It returns once the first connection attempt has
	// succeeded or failed; reconnection afterwards is the session's job.
	Start(ctx context.Context) error
	// Reconcile converges the session's subscriptions and publishers to
	// plan. The session re-applies the last plan after every reconnect.
	Reconcile(ctx context.Context, plan SessionPlan) error
	// Health reports the current state without blocking on the network.
	Health(ctx context.Context) SessionHealth
	// Events delivers lifecycle events. The channel is closed by Close.
	// Slow readers may miss events; Health is the source of truth.
	Events() <-chan SessionEvent
	// Close disconnects gracefully within ctx and releases resources.
	Close(ctx context.Context) error
}

// SessionPlan is the desired state of a session.
type SessionPlan struct {
	Subscriptions []Subscription
	// Publishers lists addresses the session should be ready to publish to,
	// for transports that open a link per address.
	Publishers []string
}

// Subscription is one desired subscription.
type Subscription struct {
	// Source is the topic filter, queue or link address.
	Source string
	// QoS is the MQTT quality of service (0, 1 or 2); other transports
	// ignore it.
	QoS int
	// NoLocal asks the broker not to echo the session's own publishes.
	NoLocal bool
	// RetainHandling is the MQTT v5 retain-handling option (0, 1 or 2).
	RetainHandling int
}

// SessionStatus is the coarse health of a session.
type SessionStatus string

// Session statuses.
const (
	SessionUp       SessionStatus = "up"
	SessionDegraded SessionStatus = "degraded"
	SessionDown     SessionStatus = "down"
)

// SessionHealth is a snapshot of a session's state.
type SessionHealth struct {
	Status     SessionStatus
	Connected  bool
	Subscribed bool
	// Detail is a short, secret-free explanation for operators.
	Detail string
	Since  time.Time
}

// SessionEventKind names a lifecycle transition.
type SessionEventKind string

// Session event kinds.
const (
	EventConnected    SessionEventKind = "connected"
	EventDisconnected SessionEventKind = "disconnected"
	EventReconnecting SessionEventKind = "reconnecting"
	EventError        SessionEventKind = "error"
)

// SessionEvent is one lifecycle transition.
type SessionEvent struct {
	Kind SessionEventKind
	At   time.Time
	Err  error
}
