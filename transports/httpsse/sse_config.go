package httpsse

import (
	"fmt"
	"strings"
	"time"
)

// NoSubscriberPolicy says what an SSE send does when nobody subscribes to
// its channel.
type NoSubscriberPolicy string

// No-subscriber policies.
const (
	// NoSubscriberAccept appends the event to the channel's replay log,
	// where a client that resumes (or starts from earliest) finds it.
	NoSubscriberAccept NoSubscriberPolicy = "accept"
	// NoSubscriberRefuse fails the send with a transient UNAVAILABLE
	// error, so the route retries it (and, when nobody subscribes in
	// time, dead-letters it).
	NoSubscriberRefuse NoSubscriberPolicy = "refuse"
)

// SSE defaults.
const (
	DefaultSSEListen          = ":8081"
	DefaultSSEPath            = "/events"
	DefaultReplayBuffer       = 1000
	DefaultClientBuffer       = 256
	DefaultHeartbeatInterval  = 15 * time.Second
	DefaultClientRetry        = 3 * time.Second
	DefaultStreamWriteTimeout = 10 * time.Second
	DefaultMaxChannels        = 10000
	DefaultMaxClients         = 10000
	// DefaultMaxSubscribersPerChannel bounds the streams of one channel.
	DefaultMaxSubscribersPerChannel = 1000
	// DefaultMaxClientsPerAddress bounds the streams of one client
	// address.
	DefaultMaxClientsPerAddress = 64
	// DefaultReplayBufferBytes bounds each channel's in-memory tail.
	DefaultReplayBufferBytes = 8 << 20
	// DefaultReplayBufferTotalBytes bounds the tails of all channels.
	DefaultReplayBufferTotalBytes = 128 << 20
	// MaxChannelLen is the longest channel name.
	MaxChannelLen = 256
)

// SSEConfig is the declarative setup of the SSE sender, as read from the
// settings of a `type: sse` sender entry. Zero fields take their
// defaults (see WithDefaults).
type SSEConfig struct {
	// Listen is the TCP address the sender serves streams on (":8081");
	// "-" serves nothing, for programs that mount Handler themselves.
	Listen string `yaml:"listen" json:"listen"`
	// Path is where clients subscribe ("/events"): GET /events/{channel}
	// or GET /events?channel={channel}.
	Path string `yaml:"path" json:"path"`
	// DefaultChannel receives sends whose address is empty; without it
	// such a send fails permanently.
	DefaultChannel string `yaml:"default_channel" json:"default_channel"`
	// ReplayBuffer is how many of its newest events each channel keeps
	// in memory (1000), a cache of its replay log that serves clients
	// resuming close to the head without reading the store.
	ReplayBuffer int `yaml:"replay_buffer" json:"replay_buffer"`
	// ReplayBufferBytes bounds the bytes each channel's in-memory cache
	// holds (8 MiB), and ReplayBufferTotalBytes what the caches of all
	// channels hold together (128 MiB); past them the oldest cached
	// events are dropped from memory (they stay in the log).
	ReplayBufferBytes      int64 `yaml:"replay_buffer_bytes" json:"replay_buffer_bytes"`
	ReplayBufferTotalBytes int64 `yaml:"replay_buffer_total_bytes" json:"replay_buffer_total_bytes"`
	// ReplayFrom is where a client without Last-Event-ID starts: live
	// (default) or earliest, every event the log keeps.
	ReplayFrom ReplayFrom `yaml:"replay_from" json:"replay_from"`
	// ReplayLog is where the channels' replay logs are kept: auto
	// (default: the bridge's store when it can hold them, else memory),
	// store (refuse to start without one) or memory.
	ReplayLog ReplayLogMode `yaml:"replay_log" json:"replay_log"`
	// LogMaxEvents, LogMaxBytes and LogMaxAge bound each channel's
	// replay log (10000 events, 64 MiB of event data, 24h); the oldest
	// events are trimmed to stay within all three.
	LogMaxEvents int           `yaml:"log_max_events" json:"log_max_events"`
	LogMaxBytes  int64         `yaml:"log_max_bytes" json:"log_max_bytes"`
	LogMaxAge    time.Duration `yaml:"log_max_age" json:"log_max_age"`
	// MemoryLogMaxBytes bounds the event data all channels keep together
	// when the replay log is in memory (256 MiB); past it the oldest
	// events of any channel are trimmed first. Logs in a store ignore it.
	MemoryLogMaxBytes int64 `yaml:"memory_log_max_bytes" json:"memory_log_max_bytes"`
	// Channels overrides replay_from and the log bounds per channel.
	Channels map[string]SSEChannelConfig `yaml:"channels" json:"channels"`
	// ClientBuffer is how many events may wait for one client (256). A
	// client that falls further behind is disconnected; it resumes from
	// the replay buffer when it reconnects.
	ClientBuffer int `yaml:"client_buffer" json:"client_buffer"`
	// HeartbeatInterval is how often an idle stream gets a comment line
	// that keeps proxies from closing it (15s).
	HeartbeatInterval time.Duration `yaml:"heartbeat_interval" json:"heartbeat_interval"`
	// ClientRetry is the reconnection delay announced to clients in the
	// stream's retry field (3s).
	ClientRetry time.Duration `yaml:"client_retry" json:"client_retry"`
	// WriteTimeout bounds each write to a client (10s); a client that
	// does not read is disconnected.
	WriteTimeout time.Duration `yaml:"write_timeout" json:"write_timeout"`
	// NoSubscriber is accept (default) or refuse.
	NoSubscriber NoSubscriberPolicy `yaml:"no_subscriber" json:"no_subscriber"`
	// MaxChannels bounds the channels kept in memory (10000); past it the
	// least recently used channel without subscribers is dropped.
	MaxChannels int `yaml:"max_channels" json:"max_channels"`
	// MaxClients bounds open streams (10000); more get 503.
	MaxClients int `yaml:"max_clients" json:"max_clients"`
	// MaxSubscribersPerChannel bounds the open streams of one channel
	// (1000), MaxClientsPerAddress those of one client address (64);
	// more get 503 and 429.
	MaxSubscribersPerChannel int `yaml:"max_subscribers_per_channel" json:"max_subscribers_per_channel"`
	MaxClientsPerAddress     int `yaml:"max_clients_per_address" json:"max_clients_per_address"`
	// AllowedChannels, when not empty, lists the channels that may
	// exist: names or path.Match patterns ("orders", "tenant-*").
	// Subscriptions to other channels get 404 and sends to them fail
	// permanently. Empty: any valid name (see README).
	AllowedChannels []string `yaml:"allowed_channels" json:"allowed_channels"`
	// BearerKeys, when not empty, makes subscribers present one of these
	// keys, as "Authorization: Bearer <key>" or, for browsers, whose
	// EventSource cannot set headers, as ?access_token=<key>.
	BearerKeys []string `yaml:"bearer_keys" json:"bearer_keys" secret:"true"`
	// AllowOrigins lists the origins whose pages may subscribe from
	// another origin (CORS); "*" allows any. Empty: same origin only.
	AllowOrigins []string `yaml:"allow_origins" json:"allow_origins"`
	// DemoPage, when set, is a path ("/") on the sender's listener where
	// it serves a small page that subscribes with EventSource and lists
	// the events as they arrive: a browser view of a channel from the
	// same origin, so it needs no allow_origins. Empty (default): no page.
	DemoPage string `yaml:"demo_page" json:"demo_page"`
}

// DefaultSSEConfig returns an SSEConfig with every default filled in.
func DefaultSSEConfig() SSEConfig { return SSEConfig{}.WithDefaults() }

// WithDefaults returns c with every zero field replaced by its default.
func (c SSEConfig) WithDefaults() SSEConfig {
	if c.Listen == "" {
		c.Listen = DefaultSSEListen
	}
	if c.Path == "" {
		c.Path = DefaultSSEPath
	}
	setDefault(&c.ReplayBuffer, DefaultReplayBuffer)
	setDefault(&c.ClientBuffer, DefaultClientBuffer)
	setDefault(&c.HeartbeatInterval, DefaultHeartbeatInterval)
	setDefault(&c.ClientRetry, DefaultClientRetry)
	setDefault(&c.WriteTimeout, DefaultStreamWriteTimeout)
	if c.NoSubscriber == "" {
		c.NoSubscriber = NoSubscriberAccept
	}
	setDefault(&c.MaxChannels, DefaultMaxChannels)
	setDefault(&c.MaxClients, DefaultMaxClients)
	c.accessDefaults()
	c.logDefaults()
	return c
}

// Validate reports every problem with c, after applying the defaults,
// each naming its field, joined into one error.
func (c SSEConfig) Validate() error {
	c = c.WithDefaults()
	var ps problems
	if err := checkPath(c.Path, ""); err != nil {
		ps.add("path", "%v", err)
	} else if strings.HasSuffix(c.Path, "/") {
		ps.add("path", "%q must not end with /", c.Path)
	}
	if c.DefaultChannel != "" {
		if err := checkChannel(c.DefaultChannel); err != nil {
			ps.add("default_channel", "%v", err)
		}
	}
	for _, f := range []struct {
		field string
		v     int
	}{
		{"replay_buffer", c.ReplayBuffer}, {"client_buffer", c.ClientBuffer},
		{"max_channels", c.MaxChannels}, {"max_clients", c.MaxClients},
	} {
		if f.v < 0 {
			ps.add(f.field, "must not be negative, got %d", f.v)
		}
	}
	for _, f := range []struct {
		field string
		v     time.Duration
	}{
		{"heartbeat_interval", c.HeartbeatInterval}, {"client_retry", c.ClientRetry}, {"write_timeout", c.WriteTimeout},
	} {
		if f.v < 0 {
			ps.add(f.field, "must not be negative, got %v", f.v)
		}
	}
	switch c.NoSubscriber {
	case NoSubscriberAccept, NoSubscriberRefuse:
	default:
		ps.add("no_subscriber", "%q is invalid; must be accept or refuse", c.NoSubscriber)
	}
	c.validateLog(&ps)
	c.validateAccess(&ps)
	checkBearerKeys(&ps, c.BearerKeys)
	checkOrigins(&ps, c.AllowOrigins)
	c.validateDemoPage(&ps)
	return ps.err()
}

// checkChannel validates a channel name.
func checkChannel(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("empty channel name")
	case len(name) > MaxChannelLen:
		return fmt.Errorf("channel name longer than %d bytes", MaxChannelLen)
	case !validHeaderValue(name):
		return fmt.Errorf("channel name %q contains control characters", name)
	}
	return nil
}
