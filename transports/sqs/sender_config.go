package sqs

import "github.com/aws/aws-sdk-go-v2/aws"

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
}

// WithDefaults fills the client defaults.
func (c SenderConfig) WithDefaults() SenderConfig {
	c.Client = c.Client.WithDefaults()
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
