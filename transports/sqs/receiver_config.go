package sqs

import "time"

// Receiver defaults.
const (
	DefaultMaxInFlight = 100
	DefaultWaitTime    = 20 * time.Second
	DefaultMaxMessages = 10
	DefaultBatchWindow = 20 * time.Millisecond
	// MaxVisibility is the longest visibility timeout SQS accepts (12h);
	// Retry and Extend cap their requests at it.
	MaxVisibility = 12 * time.Hour
)

// ReceiverConfig is the declarative setup of a Receiver, as read from the
// settings of a `type: sqs` receiver entry.
type ReceiverConfig struct {
	// Client says how to reach SQS.
	Client ClientConfig `yaml:"client" json:"client"`
	// Queue to read, by URL or by name; required.
	Queue string `yaml:"queue" json:"queue"`
	// WaitTime is the long-polling wait of each receive call, whole
	// seconds from 1s to 20s (20s).
	WaitTime time.Duration `yaml:"wait_time" json:"wait_time"`
	// MaxMessages is how many messages one receive call asks for, 1 to
	// 10 (10).
	MaxMessages int `yaml:"max_messages" json:"max_messages"`
	// Pollers is how many receive calls run at once (enough to fill the
	// route's max_in_flight at max_messages each, at most 10). Together
	// they never hold more than max_in_flight messages.
	Pollers int `yaml:"pollers" json:"pollers"`
	// VisibilityTimeout is asked for on every receive, whole seconds up
	// to 12h (0: the queue's own, read at start).
	VisibilityTimeout time.Duration `yaml:"visibility_timeout" json:"visibility_timeout"`
	// BatchWindow is how long acknowledgements and lease extensions wait
	// for others to share a DeleteMessageBatch or
	// ChangeMessageVisibilityBatch call (20ms); a full batch of 10 goes at
	// once.
	BatchWindow time.Duration `yaml:"batch_window" json:"batch_window"`
	// Ordered hands out the messages of one FIFO message group one at a
	// time, the next only once the previous was acked (true for queues
	// whose name ends in .fifo; only for those).
	Ordered *bool `yaml:"ordered" json:"ordered"`
}

// WithDefaults fills every unset field but Pollers, which depends on the
// route's in-flight limit.
func (c ReceiverConfig) WithDefaults() ReceiverConfig {
	c.Client = c.Client.WithDefaults()
	setDefault(&c.WaitTime, DefaultWaitTime)
	setDefault(&c.MaxMessages, DefaultMaxMessages)
	setDefault(&c.BatchWindow, DefaultBatchWindow)
	if c.Ordered == nil {
		fifo := isFIFO(c.Queue)
		c.Ordered = &fifo
	}
	return c
}

// Validate reports every problem of c, each naming its field.
func (c ReceiverConfig) Validate() error {
	var p problems
	c.Client.check(&p, "client.")
	if c.Queue == "" {
		p.add("queue", "required: a queue URL or name")
	} else {
		checkQueue(&p, "queue", c.Queue)
	}
	if c.WaitTime < time.Second || c.WaitTime > 20*time.Second || c.WaitTime%time.Second != 0 {
		p.add("wait_time", "must be whole seconds from 1s to 20s, got %v", c.WaitTime)
	}
	if c.MaxMessages < 1 || c.MaxMessages > 10 {
		p.add("max_messages", "must be 1 to 10, got %d", c.MaxMessages)
	}
	if c.Pollers < 0 || c.Pollers > 10 {
		p.add("pollers", "must be 0 (derived) to 10, got %d", c.Pollers)
	}
	if c.VisibilityTimeout < 0 || c.VisibilityTimeout > MaxVisibility || c.VisibilityTimeout%time.Second != 0 {
		p.add("visibility_timeout", "must be whole seconds from 0 (the queue's) to 12h, got %v", c.VisibilityTimeout)
	}
	if c.BatchWindow <= 0 || c.BatchWindow > time.Second {
		p.add("batch_window", "must be positive and at most 1s, got %v", c.BatchWindow)
	}
	if c.Ordered != nil && *c.Ordered && !isFIFO(c.Queue) {
		p.add("ordered", "needs a FIFO queue (a name ending in .fifo)")
	}
	return p.err()
}
