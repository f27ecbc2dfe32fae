package ports

import (
	"context"

	"github.com/gobridge-oss/gobridge/core/messaging"
)

// ProcessorFunc is the rest of the chain as seen by a processor.
type ProcessorFunc func(ctx context.Context, env *messaging.Envelope) error

// Processor is one layer of a route's processing onion.
//
// Process may modify env and then call next to continue the chain; work
// after next returns runs on the way out. A processor that returns nil
// without calling next ends the chain early, and the message is still
// dispatched. Returning fault.ErrMessageFiltered drops the message on
// purpose; any other error is settled according to its class.
type Processor interface {
	Name() string
	Process(ctx context.Context, env *messaging.Envelope, next ProcessorFunc) error
}
