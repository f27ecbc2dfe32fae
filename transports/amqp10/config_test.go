package amqp10

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func problemsOf(err error) []string {
	if err == nil {
		return nil
	}
	var out []string
	for _, line := range strings.Split(err.Error(), "\n") {
		out = append(out, strings.TrimPrefix(line, "INVALID_CONFIG: "))
	}
	return out
}

func TestSessionConfigValidateListsEveryProblem(t *testing.T) {
	neg := -0.5
	tests := []struct {
		name string
		cfg  SessionConfig
		want []string
	}{
		{"defaults are valid", SessionConfig{}, nil},
		{"plain with user", SessionConfig{Username: "u", Password: "p"}, nil},
		{"everything wrong", SessionConfig{URL: "http://u:p@", SASL: SASLExternal, IdleTimeout: -time.Second,
			Reconnect: ReconnectConfig{Initial: time.Minute, Max: time.Second, Factor: 0.5, Jitter: &neg}},
			[]string{
				"url: scheme must be amqp or amqps, got \"http\"",
				"url: has no host",
				"url: must not carry credentials; use username and password",
				"sasl: external needs a client certificate (tls.cert_file and tls.key_file)",
				"idle_timeout: must be positive, got -1s",
				"reconnect.max: must be at least reconnect.initial (1m0s), got 1s",
				"reconnect.factor: must be at least 1, got 0.5",
				"reconnect.jitter: must be within [0,1], got -0.5",
			}},
		{"plain without user", SessionConfig{SASL: SASLPlain}, []string{"username: required with sasl plain"}},
		{"anonymous with user", SessionConfig{SASL: SASLAnonymous, Username: "u"}, []string{"username: must be empty with sasl anonymous"}},
		{"unknown sasl", SessionConfig{SASL: "scram"}, []string{"sasl: must be plain, anonymous or external, got \"scram\""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, problemsOf(tt.cfg.WithDefaults().Validate())); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSessionConfigDefaults(t *testing.T) {
	c := SessionConfig{}.WithDefaults()
	if c.URL != DefaultURL || c.SASL != SASLAnonymous || c.IdleTimeout != DefaultIdleTimeout ||
		c.CloseTimeout != DefaultCloseTimeout || *c.Reconnect.Jitter != DefaultReconnectJitter {
		t.Errorf("defaults: %+v", c)
	}
	if got := (SessionConfig{Username: "u"}).WithDefaults().SASL; got != SASLPlain {
		t.Errorf("sasl with a username = %q, want plain", got)
	}
}

func TestReconnectDelayIsBoundedAndJittered(t *testing.T) {
	j := 0.5
	r := ReconnectConfig{Initial: 100 * time.Millisecond, Max: time.Second, Factor: 2, Jitter: &j}
	tests := []struct {
		attempt int
		rnd     float64
		want    time.Duration
	}{
		{0, 0, 50 * time.Millisecond},
		{0, 1, 100 * time.Millisecond},
		{2, 0.5, 300 * time.Millisecond},
		{10, 0, 500 * time.Millisecond},
		{10, 1, time.Second},
	}
	for _, tt := range tests {
		if got := r.delay(tt.attempt, tt.rnd); got != tt.want {
			t.Errorf("delay(%d, %v) = %v, want %v", tt.attempt, tt.rnd, got, tt.want)
		}
	}
}

func TestSenderConfigValidate(t *testing.T) {
	if err := (SenderConfig{}).WithDefaults().Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
	got := problemsOf(SenderConfig{Address: " q ", MaxLinks: -1}.WithDefaults().Validate())
	want := []string{"address: must not start or end with spaces", "max_links: must be positive, got -1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

func TestReceiverConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  ReceiverConfig
		want []string
	}{
		{"minimal", ReceiverConfig{Address: "/amq/queue/q"}, nil},
		{"everything wrong", ReceiverConfig{Credit: -1, Retry: "sometimes", Linger: -time.Second}, []string{
			"address: required",
			"credit: must be within [1,2147483647], or 0 for the route's max_in_flight; got -1",
			"retry: must be modified, released or off, got \"sometimes\"",
			"linger: must not be negative, got -1s",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, problemsOf(tt.cfg.WithDefaults().Validate())); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
	c := ReceiverConfig{Address: "a"}.WithDefaults()
	if c.Retry != RetryModified || c.Linger != DefaultLinger || c.Credit != 0 {
		t.Errorf("defaults: %+v", c)
	}
}
