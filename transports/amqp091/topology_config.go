package amqp091

import (
	"fmt"
	"time"
)

// Topology is the set of exchanges, queues and bindings a session declares
// on every connection, in that order. Declaring is idempotent on the
// broker; a declaration that conflicts with what exists (another type or
// other arguments) fails the connection attempt and is reported.
type Topology struct {
	Exchanges []ExchangeSpec `yaml:"exchanges" json:"exchanges"`
	Queues    []QueueSpec    `yaml:"queues" json:"queues"`
	Bindings  []BindingSpec  `yaml:"bindings" json:"bindings"`
}

// ExchangeSpec declares one exchange.
type ExchangeSpec struct {
	// Name of the exchange; required.
	Name string `yaml:"name" json:"name"`
	// Type is direct, fanout, topic, headers or a plugin type (direct).
	Type string `yaml:"type" json:"type"`
	// Durable exchanges survive a broker restart (true).
	Durable *bool `yaml:"durable" json:"durable"`
	// AutoDelete removes the exchange when its last binding goes (false).
	AutoDelete bool `yaml:"auto_delete" json:"auto_delete"`
	// Internal exchanges accept publishes only from other exchanges
	// (false).
	Internal bool `yaml:"internal" json:"internal"`
	// Arguments are passed as they are (for example alternate-exchange).
	Arguments map[string]any `yaml:"arguments" json:"arguments"`
}

// QueueSpec declares one queue. The typed fields are shorthands for the
// usual x-arguments; Arguments may set any other.
type QueueSpec struct {
	// Name of the queue; required.
	Name string `yaml:"name" json:"name"`
	// Type is classic, quorum or stream (x-queue-type); empty leaves the
	// broker's default.
	Type string `yaml:"type" json:"type"`
	// Durable queues survive a broker restart (true). Quorum and stream
	// queues must be durable.
	Durable *bool `yaml:"durable" json:"durable"`
	// AutoDelete removes the queue when its last consumer leaves (false).
	AutoDelete bool `yaml:"auto_delete" json:"auto_delete"`
	// Exclusive queues belong to one connection (false).
	Exclusive bool `yaml:"exclusive" json:"exclusive"`
	// DeadLetterExchange receives messages the queue rejects or expires
	// (x-dead-letter-exchange); DeadLetterRoutingKey replaces their routing
	// key (x-dead-letter-routing-key).
	DeadLetterExchange   string `yaml:"dead_letter_exchange" json:"dead_letter_exchange"`
	DeadLetterRoutingKey string `yaml:"dead_letter_routing_key" json:"dead_letter_routing_key"`
	// MessageTTL expires messages after this long in the queue
	// (x-message-ttl; 0: never).
	MessageTTL time.Duration `yaml:"message_ttl" json:"message_ttl"`
	// MaxLength bounds the queue's messages (x-max-length; 0: no bound).
	MaxLength int `yaml:"max_length" json:"max_length"`
	// DeliveryLimit bounds redeliveries of quorum queues
	// (x-delivery-limit; 0: the broker's default).
	DeliveryLimit int `yaml:"delivery_limit" json:"delivery_limit"`
	// Arguments are passed as they are and win over the shorthands.
	Arguments map[string]any `yaml:"arguments" json:"arguments"`
}

// BindingSpec binds a queue (or, with DestinationExchange, an exchange) to
// an exchange.
type BindingSpec struct {
	// Exchange is the source exchange; required.
	Exchange string `yaml:"exchange" json:"exchange"`
	// Queue is the destination queue; exactly one of Queue and
	// DestinationExchange is set.
	Queue string `yaml:"queue" json:"queue"`
	// DestinationExchange binds an exchange to an exchange.
	DestinationExchange string `yaml:"destination_exchange" json:"destination_exchange"`
	// RoutingKey is the binding key (empty).
	RoutingKey string `yaml:"routing_key" json:"routing_key"`
	// Arguments are passed as they are (headers exchanges match on them).
	Arguments map[string]any `yaml:"arguments" json:"arguments"`
}

// WithDefaults returns t with every zero field replaced by its default.
func (t Topology) WithDefaults() Topology {
	ex := make([]ExchangeSpec, len(t.Exchanges))
	for i, e := range t.Exchanges {
		setDefault(&e.Type, "direct")
		ex[i] = e
	}
	t.Exchanges = ex
	return t
}

// Validate reports every problem with t, each naming its field.
func (t Topology) Validate() error {
	t = t.WithDefaults()
	var ps problems
	for i, e := range t.Exchanges {
		f := fmt.Sprintf("exchanges[%d]", i)
		if e.Name == "" || len(e.Name) > 255 {
			ps.add(f+".name", "must be 1 to 255 bytes, got %q", e.Name)
		}
		checkArguments(&ps, f+".arguments", e.Arguments)
	}
	for i, q := range t.Queues {
		f := fmt.Sprintf("queues[%d]", i)
		if q.Name == "" || len(q.Name) > 255 {
			ps.add(f+".name", "must be 1 to 255 bytes, got %q", q.Name)
		}
		switch q.Type {
		case "", "classic":
		case "quorum", "stream":
			if !boolOr(q.Durable, true) || q.Exclusive || q.AutoDelete {
				ps.add(f+".type", "%s queues must be durable, not exclusive and not auto_delete", q.Type)
			}
		default:
			ps.add(f+".type", "%q is invalid; must be classic, quorum or stream", q.Type)
		}
		if q.MessageTTL < 0 || q.MaxLength < 0 || q.DeliveryLimit < 0 {
			ps.add(f, "message_ttl, max_length and delivery_limit must not be negative")
		}
		checkArguments(&ps, f+".arguments", q.Arguments)
	}
	for i, b := range t.Bindings {
		f := fmt.Sprintf("bindings[%d]", i)
		if b.Exchange == "" {
			ps.add(f+".exchange", "is required")
		}
		if (b.Queue == "") == (b.DestinationExchange == "") {
			ps.add(f, "set exactly one of queue and destination_exchange")
		}
		checkArguments(&ps, f+".arguments", b.Arguments)
	}
	return ps.err()
}

// queueArguments merges the typed shorthands and the free arguments.
func (q QueueSpec) queueArguments() map[string]any {
	args := map[string]any{}
	if q.Type != "" {
		args["x-queue-type"] = q.Type
	}
	if q.DeadLetterExchange != "" {
		args["x-dead-letter-exchange"] = q.DeadLetterExchange
	}
	if q.DeadLetterRoutingKey != "" {
		args["x-dead-letter-routing-key"] = q.DeadLetterRoutingKey
	}
	if q.MessageTTL > 0 {
		args["x-message-ttl"] = q.MessageTTL.Milliseconds()
	}
	if q.MaxLength > 0 {
		args["x-max-length"] = int64(q.MaxLength)
	}
	if q.DeliveryLimit > 0 {
		args["x-delivery-limit"] = int64(q.DeliveryLimit)
	}
	for k, v := range q.Arguments {
		args[k] = v
	}
	return args
}

func checkArguments(ps *problems, field string, args map[string]any) {
	if _, err := toTable(args); err != nil {
		ps.add(field, "%v", err)
	}
}
