package runtime

import (
	"time"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// Route is one flow from a receiver through processors to bindings.
type Route struct {
	// ID names the route in logs, metrics and the x-bridge.route-id header.
	ID string
	// ReceiverID names the source; it becomes the x-bridge.source-id header.
	ReceiverID string
	// Receiver produces the deliveries.
	Receiver ports.Receiver
	// DeliveryMode defaults to DirectHold.
	DeliveryMode DeliveryMode
	// DispatchMode defaults to Single.
	DispatchMode DispatchMode
	// TrustBridgeHeaders keeps the bridge-to-bridge propagated headers of
	// inbound messages; leave it false unless the receiver is fed only by a
	// trusted upstream bridge.
	TrustBridgeHeaders bool
	// Policy tunes retries and terminal handling.
	Policy Policy
	// Bindings are the destinations the route may dispatch to.
	Bindings []Binding
	// Processors run in order, each wrapping the next.
	Processors []ports.Processor
	// Resolver picks destinations. Nil means every binding for FanOut and
	// the first binding for Single.
	Resolver ports.DestinationResolver
}

// Binding joins a sender to a default address.
type Binding struct {
	ID string
	// SenderID names the sender in logs and metrics.
	SenderID string
	Sender   ports.Sender
	// Address is used when the resolver's plan carries none.
	Address string
	// Headers are added to the outbound copy of every message sent through
	// this binding.
	Headers map[string]any
	// DeliverAfter, when positive, sets each outbound message's NotBefore
	// to the send time plus this delay. The sender must implement
	// ports.Delayer; New refuses the route otherwise.
	DeliverAfter time.Duration
}

// notBefore is the NotBefore of a message this binding sends now.
func (b *Binding) notBefore() time.Time {
	if b.DeliverAfter <= 0 {
		return time.Time{}
	}
	return time.Now().Add(b.DeliverAfter)
}
