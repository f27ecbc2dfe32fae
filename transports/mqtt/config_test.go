package mqtt

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fields returns the field names the problems of err start with.
func fields(err error) []string {
	if err == nil {
		return nil
	}
	var out []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		msg := e.Error()
		msg = strings.TrimPrefix(msg, "INVALID_CONFIG: ")
		out = append(out, strings.SplitN(msg, ":", 2)[0])
	}
	return out
}

func TestSessionConfigValidate(t *testing.T) {
	ok := SessionConfig{URLs: []string{"mqtt://localhost"}}
	tests := []struct {
		name string
		mod  func(*SessionConfig)
		want []string
	}{
		{"defaults", func(*SessionConfig) {}, nil},
		{"every scheme", func(c *SessionConfig) {
			c.URLs = []string{"tcp://h:1", "mqtts://h", "ssl://h", "tls://h", "ws://h/mqtt", "wss://h/mqtt"}
		}, nil},
		{"no url", func(c *SessionConfig) { c.URLs = nil }, []string{"urls"}},
		{"bad scheme", func(c *SessionConfig) { c.URLs = []string{"http://h"} }, []string{"urls[0]"}},
		{"credentials in url", func(c *SessionConfig) { c.URLs = []string{"mqtt://u:secret@h"} }, []string{"urls[0]"}},
		{"expiry without client id", func(c *SessionConfig) { c.SessionExpiry = time.Minute }, []string{"client_id"}},
		{"password without user", func(c *SessionConfig) { c.Password = "p" }, []string{"password"}},
		{"fractional keep alive", func(c *SessionConfig) { c.KeepAlive = 1500 * time.Millisecond }, []string{"keep_alive"}},
		{"keep alive too long", func(c *SessionConfig) { c.KeepAlive = 70000 * time.Second }, []string{"keep_alive"}},
		{"receive maximum", func(c *SessionConfig) { c.ReceiveMaximum = 70000 }, []string{"receive_maximum"}},
		{"packet size", func(c *SessionConfig) { c.MaxPacketSize = 10 }, []string{"max_packet_size"}},
		{"user properties", func(c *SessionConfig) { c.MaxUserProperties = -1 }, []string{"max_user_properties"}},
		{"backoff", func(c *SessionConfig) {
			c.Reconnect = ReconnectConfig{Initial: time.Minute, Max: time.Second, Multiplier: 0.5, Jitter: 2}
		}, []string{"reconnect.initial", "reconnect.multiplier", "reconnect.jitter"}},
		{"tls", func(c *SessionConfig) { c.TLS = TLSConfig{MinVersion: "1.1", CertFile: "/nonexistent"} },
			[]string{"tls.min_version", "tls.cert_file", "tls.cert_file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ok
			tt.mod(&c)
			if diff := cmp.Diff(tt.want, fields(c.Validate())); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
	if err := (SessionConfig{URLs: []string{"mqtt://u:secret@h"}}).Validate(); err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("a URL with credentials: %v; want an error that does not repeat the password", err)
	}
}

func TestSessionDefaults(t *testing.T) {
	want := SessionConfig{KeepAlive: 30 * time.Second, ConnectTimeout: 10 * time.Second, PacketTimeout: 10 * time.Second,
		ReceiveMaximum: 100, MaxPacketSize: 1 << 20, MaxUserProperties: 64,
		Reconnect: ReconnectConfig{Initial: time.Second, Max: 30 * time.Second, Multiplier: 2, Jitter: 0.2}}
	if diff := cmp.Diff(want, DefaultSessionConfig()); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
}

func TestReceiverAndSenderConfigValidate(t *testing.T) {
	sub := func(topic string, mod func(*SubscriptionConfig)) ReceiverConfig {
		s := SubscriptionConfig{Topic: topic}
		if mod != nil {
			mod(&s)
		}
		return ReceiverConfig{Subscriptions: []SubscriptionConfig{s}}
	}
	tests := []struct {
		name string
		err  error
		want []string
	}{
		{"plain", sub("a/+/c/#", nil).Validate(), nil},
		{"shared", sub("$share/g/a/#", nil).Validate(), nil},
		{"none", ReceiverConfig{}.Validate(), []string{"subscriptions"}},
		{"bad wildcard", sub("a/b#", nil).Validate(), []string{"subscriptions[0].topic"}},
		{"hash not last", sub("a/#/b", nil).Validate(), []string{"subscriptions[0].topic"}},
		{"bad share", sub("$share/g", nil).Validate(), []string{"subscriptions[0].topic"}},
		{"qos", sub("a", func(s *SubscriptionConfig) { s.QoS = IntPtr(3) }).Validate(), []string{"subscriptions[0].qos"}},
		{"retain handling", sub("a", func(s *SubscriptionConfig) { s.RetainHandling = 3 }).Validate(), []string{"subscriptions[0].retain_handling"}},
		{"no local on share", sub("$share/g/a", func(s *SubscriptionConfig) { s.NoLocal = true }).Validate(), []string{"subscriptions[0].no_local"}},
		{"sender ok", SenderConfig{DefaultTopic: "a/b", QoS: IntPtr(2)}.Validate(), nil},
		{"sender wildcard topic", SenderConfig{DefaultTopic: "a/#"}.Validate(), []string{"default_topic"}},
		{"sender qos", SenderConfig{QoS: IntPtr(-1)}.Validate(), []string{"qos"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, fields(tt.err)); diff != "" {
			t.Errorf("%s: problems (-want +got):\n%s", tt.name, diff)
		}
	}
	var e interface{ Unwrap() []error }
	if !errors.As(ReceiverConfig{}.Validate(), &e) {
		t.Error("Validate does not join its problems")
	}
}

func TestMatchTopic(t *testing.T) {
	tests := []struct {
		filter, topic string
		want          bool
	}{
		{"a/b", "a/b", true},
		{"a/b", "a/c", false},
		{"a/+", "a/b", true},
		{"a/+", "a/b/c", false},
		{"a/#", "a", true},
		{"a/#", "a/b/c", true},
		{"#", "a/b", true},
		{"#", "$SYS/x", false},
		{"+/b", "$SYS/b", false},
		{"$SYS/#", "$SYS/x", true},
		{"a/+/c", "a//c", true},
		{"a/b", "a/b/", false},
	}
	for _, tt := range tests {
		if got := matchTopic(tt.filter, tt.topic); got != tt.want {
			t.Errorf("matchTopic(%q, %q) = %v, want %v", tt.filter, tt.topic, got, tt.want)
		}
	}
	if got := filterOf("$share/g/a/#"); got != "a/#" {
		t.Errorf("filterOf = %q", got)
	}
}
