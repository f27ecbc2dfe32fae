package ports

import (
	"context"

	"github.com/gobridge-oss/gobridge/core/messaging"
)

// DispatchPlan is one destination chosen for a message: a binding and the
// transport address to use with it. Headers, when set, are added to the
// outbound copy of the envelope for this destination only.
type DispatchPlan struct {
	BindingID string
	Address   string
	Headers   map[string]any
}

// DestinationResolver picks the destinations of a message. It returns at
// least one plan or an error; a plan naming a binding that is not on the
// route is a permanent error for that message.
type DestinationResolver interface {
	Resolve(ctx context.Context, env *messaging.Envelope) ([]DispatchPlan, error)
}
