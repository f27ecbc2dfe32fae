package memtransport

import (
	"github.com/gobridge-oss/gobridge/core/ports"
)

// DefaultQueueSize is the Publish capacity of a Receiver whose
// Options.QueueSize is zero or negative.
const DefaultQueueSize = 1024

// UnsettledPolicy says what a simulated restart (Receiver.RequeueUnsettled)
// does with deliveries that were handed out but never settled.
type UnsettledPolicy uint8

const (
	// UnsettledRedeliver puts unsettled messages back at the head of the
	// queue, as a broker with acknowledgements would. It is the default,
	// and the Receiver then reports RedeliversUnsettled.
	UnsettledRedeliver UnsettledPolicy = iota
	// UnsettledDrop forgets unsettled messages, as a fire-and-forget source
	// would. They are counted by Receiver.Dropped.
	UnsettledDrop
)

// Options configures a Receiver. The zero value is usable.
type Options struct {
	// QueueSize bounds how many messages Publish may queue before it
	// blocks. Redeliveries (Retry, RequeueUnsettled, a refused emit) are
	// never blocked and may exceed it. Zero means DefaultQueueSize.
	QueueSize int
	// Clock times Retry delays. Nil means clock.System().
	Clock ports.Clock
	// NoRetry makes Delivery.Retry fail with NOT_SUPPORTED and the
	// capabilities report Retry false.
	NoRetry bool
	// CountRedeliveries makes deliveries report their redelivery count
	// through ports.RedeliveryCounter; otherwise the count is not known
	// (ok false).
	CountRedeliveries bool
	// Unsettled chooses what RequeueUnsettled does.
	Unsettled UnsettledPolicy
	// NoHistory keeps only counters: Acked, Retried and Extended then
	// return nothing. Benchmarks set it so that memory stays flat.
	NoHistory bool
}

// SenderOptions configures a Sender or BatchSender. The zero value records
// every message.
type SenderOptions struct {
	// Fail, when set, is consulted before each message is accepted. A
	// non-nil result is returned to the caller unchanged (or placed in the
	// message's BatchResult) and the message is not recorded or counted.
	Fail func(msg ports.OutboundMessage) error
	// Discard only counts accepted messages instead of recording copies of
	// them, so that Send does not allocate. Sent then returns nothing.
	Discard bool
	// DefaultAddress replaces an empty OutboundMessage.Address in what is
	// recorded (and passed to Fail), like a transport's configured default
	// destination. Empty means addresses are recorded as given.
	DefaultAddress string
}
