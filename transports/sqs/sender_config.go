package sqs

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/gobridge-oss/gobridge/core/messaging"
)

// SenderConfig is the declarative setup of a Sender, as read from the
// settings of a `type: sqs` sender entry.
type SenderConfig struct {
	// Client says how to reach SQS.
	Client ClientConfig `yaml:"client" json:"client"`
	// Queue is the default destination, by URL or by name, for messages
	// whose route gives no address (none: such messages fail).
	Queue string `yaml:"queue" json:"queue"`
	// Batch sends with SendMessageBatch (true). Off, every message is its
	// own SendMessage call: only for servers whose batch call loses
	// message attributes, as the goaws emulator's does.
	Batch *bool `yaml:"batch" json:"batch"`
	// BatchWindow is how long a Send waits for concurrent sends to the
	// same queue to share its SendMessageBatch call (10ms); 10 waiting go
	// at once. At most 1s.
	BatchWindow time.Duration `yaml:"batch_window" json:"batch_window"`
	// FIFO applies to destinations whose name ends in .fifo.
	FIFO FIFOConfig `yaml:"fifo" json:"fifo"`
	// MinimalHeaders leaves the bridge-to-bridge x-bridge.* headers
	// (correlation and causation IDs, idempotency key, dedup ID, ordering
	// key, tenant ID, forwarded-from and -hop) out of the sent messages:
	// one attribute less per message and header for SQS to store. FIFO
	// group and deduplication ids are still taken from them.
	MinimalHeaders bool `yaml:"minimal_headers" json:"minimal_headers"`
}

// DefaultSendWindow is the sender's default batch_window.
const DefaultSendWindow = 10 * time.Millisecond

// Deduplication modes of a FIFO sender.
const (
	// DedupMessageID sends the x-bridge.dedup-id header, else the
	// envelope ID, as the MessageDeduplicationId (hashed when longer than
	// SQS's 128 characters or made of characters it refuses).
	DedupMessageID = "message_id"
	// DedupContent sends none: the queue must have content-based
	// deduplication on.
	DedupContent = "content"
)

// FIFOConfig says how messages to FIFO queues get their group and
// deduplication ids.
type FIFOConfig struct {
	// GroupHeader names the header whose value is the MessageGroupId
	// (x-bridge.ordering-key).
	GroupHeader string `yaml:"group_header" json:"group_header"`
	// DefaultGroup is the MessageGroupId of messages without that header
	// (none: such messages fail with INVALID_PAYLOAD).
	DefaultGroup string `yaml:"default_group" json:"default_group"`
	// Deduplication is message_id (the default) or content.
	Deduplication string `yaml:"deduplication" json:"deduplication"`
}

// WithDefaults fills the client defaults.
func (c SenderConfig) WithDefaults() SenderConfig {
	c.Client = c.Client.WithDefaults()
	setDefault(&c.BatchWindow, DefaultSendWindow)
	setDefault(&c.FIFO.GroupHeader, messaging.HeaderOrderingKey)
	setDefault(&c.FIFO.Deduplication, DedupMessageID)
	if c.Batch == nil {
		c.Batch = aws.Bool(true)
	}
	return c
}

// Validate reports every problem of c, each naming its field.
func (c SenderConfig) Validate() error {
	var p problems
	c.Client.check(&p, "client.")
	if c.Queue != "" {
		checkQueue(&p, "queue", c.Queue)
	}
	if c.BatchWindow <= 0 || c.BatchWindow > time.Second {
		p.add("batch_window", "must be positive and at most 1s, got %v", c.BatchWindow)
	}
	switch c.FIFO.Deduplication {
	case DedupMessageID, DedupContent:
	default:
		p.add("fifo.deduplication", "must be message_id or content, got %q", c.FIFO.Deduplication)
	}
	if c.FIFO.DefaultGroup != "" && !fifoIDValid(c.FIFO.DefaultGroup) {
		p.add("fifo.default_group", "must be 1 to 128 printable ASCII characters, got %q", c.FIFO.DefaultGroup)
	}
	return p.err()
}

// checkQueue accepts a queue URL or a queue name (1 to 80 letters, digits,
// '-' and '_', with an optional .fifo suffix).
func checkQueue(p *problems, field, q string) {
	if isQueueURL(q) {
		return
	}
	name := q
	if len(name) > 5 && name[len(name)-5:] == ".fifo" {
		name = name[:len(name)-5]
	}
	if name == "" || len(q) > 80 {
		p.add(field, "a queue name has 1 to 80 characters, got %d", len(q))
		return
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			p.add(field, "%q is neither a queue URL nor a queue name (letters, digits, '-', '_')", q)
			return
		}
	}
}
