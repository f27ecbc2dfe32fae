package httpsse

import (
	"fmt"
	"sort"
	"time"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// ReplayFrom says where a client that subscribes without Last-Event-ID
// starts.
type ReplayFrom string

// Replay starting points.
const (
	// ReplayFromLive sends only events published after the client
	// subscribed: a live view.
	ReplayFromLive ReplayFrom = "live"
	// ReplayFromEarliest first sends every event the channel's log still
	// keeps, then the live ones.
	ReplayFromEarliest ReplayFrom = "earliest"
)

// ReplayLogMode says where the SSE sender keeps its channels' replay logs.
type ReplayLogMode string

// Replay log modes.
const (
	// ReplayLogAuto keeps the logs in the bridge's store when it can hold
	// them, else in memory, with a warning at start.
	ReplayLogAuto ReplayLogMode = "auto"
	// ReplayLogStore keeps the logs in the bridge's store and refuses to
	// start without one that can hold them.
	ReplayLogStore ReplayLogMode = "store"
	// ReplayLogMemory keeps the logs in memory: a restart empties them.
	ReplayLogMemory ReplayLogMode = "memory"
)

// Replay log defaults.
const (
	DefaultLogMaxEvents = 10000
	DefaultLogMaxBytes  = 64 << 20
	DefaultLogMaxAge    = 24 * time.Hour
	// DefaultMemoryLogMaxBytes bounds the event data of all channels of
	// a replay log the sender keeps in memory.
	DefaultMemoryLogMaxBytes = 256 << 20
)

// SSEChannelConfig overrides the sender's replay settings for one
// channel. Zero fields keep the sender's value.
type SSEChannelConfig struct {
	// ReplayFrom is live or earliest.
	ReplayFrom ReplayFrom `yaml:"replay_from" json:"replay_from"`
	// LogMaxEvents, LogMaxBytes and LogMaxAge bound the channel's log.
	LogMaxEvents int           `yaml:"log_max_events" json:"log_max_events"`
	LogMaxBytes  int64         `yaml:"log_max_bytes" json:"log_max_bytes"`
	LogMaxAge    time.Duration `yaml:"log_max_age" json:"log_max_age"`
}

// channelSettings are the effective replay settings of one channel.
type channelSettings struct {
	replayFrom ReplayFrom
	bounds     ports.StreamBounds
}

// channel returns the effective replay settings of the named channel.
// c has its defaults applied.
func (c SSEConfig) channel(name string) channelSettings {
	cs := channelSettings{replayFrom: c.ReplayFrom, bounds: ports.StreamBounds{
		MaxEvents: c.LogMaxEvents, MaxBytes: c.LogMaxBytes, MaxAge: c.LogMaxAge}}
	o, ok := c.Channels[name]
	if !ok {
		return cs
	}
	if o.ReplayFrom != "" {
		cs.replayFrom = o.ReplayFrom
	}
	if o.LogMaxEvents != 0 {
		cs.bounds.MaxEvents = o.LogMaxEvents
	}
	if o.LogMaxBytes != 0 {
		cs.bounds.MaxBytes = o.LogMaxBytes
	}
	if o.LogMaxAge != 0 {
		cs.bounds.MaxAge = o.LogMaxAge
	}
	return cs
}

// logDefaults fills the replay log fields of c.
func (c *SSEConfig) logDefaults() {
	if c.ReplayFrom == "" {
		c.ReplayFrom = ReplayFromLive
	}
	if c.ReplayLog == "" {
		c.ReplayLog = ReplayLogAuto
	}
	setDefault(&c.LogMaxEvents, DefaultLogMaxEvents)
	setDefault(&c.LogMaxBytes, DefaultLogMaxBytes)
	setDefault(&c.LogMaxAge, DefaultLogMaxAge)
	setDefault(&c.MemoryLogMaxBytes, DefaultMemoryLogMaxBytes)
}

// validateLog adds the problems of the replay log fields of c to ps.
func (c SSEConfig) validateLog(ps *problems) {
	checkFrom := func(field string, v ReplayFrom) {
		if v != ReplayFromLive && v != ReplayFromEarliest {
			ps.add(field, "%q is invalid; must be live or earliest", v)
		}
	}
	checkBounds := func(prefix string, events int, bytes int64, age time.Duration) {
		if events < 0 {
			ps.add(prefix+"log_max_events", "must not be negative, got %d", events)
		}
		if bytes < 0 {
			ps.add(prefix+"log_max_bytes", "must not be negative, got %d", bytes)
		}
		if age < 0 {
			ps.add(prefix+"log_max_age", "must not be negative, got %v", age)
		}
	}
	checkFrom("replay_from", c.ReplayFrom)
	switch c.ReplayLog {
	case ReplayLogAuto, ReplayLogStore, ReplayLogMemory:
	default:
		ps.add("replay_log", "%q is invalid; must be auto, store or memory", c.ReplayLog)
	}
	checkBounds("", c.LogMaxEvents, c.LogMaxBytes, c.LogMaxAge)
	if c.MemoryLogMaxBytes < 0 {
		ps.add("memory_log_max_bytes", "must not be negative, got %d", c.MemoryLogMaxBytes)
	}
	names := make([]string, 0, len(c.Channels))
	for name := range c.Channels {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		o := c.Channels[name]
		prefix := fmt.Sprintf("channels.%s.", name)
		if err := checkChannel(name); err != nil {
			ps.add("channels", "%v", err)
			continue
		}
		if o.ReplayFrom != "" {
			checkFrom(prefix+"replay_from", o.ReplayFrom)
		}
		checkBounds(prefix, o.LogMaxEvents, o.LogMaxBytes, o.LogMaxAge)
	}
}
