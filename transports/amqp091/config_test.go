package amqp091

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// problemFields returns the field each joined problem names (the text
// before the first colon of its message).
func problemFields(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var out []string
	for _, line := range strings.Split(err.Error(), "\n") {
		if fault.CodeOf(err) != fault.CodeInvalidConfig {
			t.Errorf("problem %q is not INVALID_CONFIG", line)
		}
		msg := strings.TrimPrefix(line, string(fault.CodeInvalidConfig)+": ")
		out = append(out, msg[:strings.Index(msg, ":")])
	}
	return out
}

func TestSessionConfigValidate(t *testing.T) {
	half, tooMuch := 0.5, 1.5
	cases := []struct {
		name string
		cfg  SessionConfig
		want []string
	}{
		{"defaults", SessionConfig{}, nil},
		{"amqps with TLS", SessionConfig{URL: "amqps://u:p@broker:5671/vh", TLS: TLSConfig{ServerName: "b"}}, nil},
		{"wrong scheme", SessionConfig{URL: "http://h/"}, []string{"url"}},
		{"short heartbeat", SessionConfig{Heartbeat: time.Millisecond}, []string{"heartbeat"}},
		{"cert without key", SessionConfig{TLS: TLSConfig{CertFile: "c.pem"}}, []string{"tls"}},
		{"reconnect", SessionConfig{Reconnect: ReconnectConfig{Initial: time.Second, Max: time.Millisecond, Factor: 0.5, Jitter: &tooMuch}},
			[]string{"reconnect.max", "reconnect.factor", "reconnect.jitter"}},
		{"jitter ok", SessionConfig{Reconnect: ReconnectConfig{Jitter: &half}}, nil},
		{"topology", SessionConfig{Topology: Topology{
			Exchanges: []ExchangeSpec{{Name: ""}},
			Queues:    []QueueSpec{{Name: "q", Type: "quorum", AutoDelete: true}, {Name: "r", Type: "lazy"}},
			Bindings:  []BindingSpec{{Queue: "q"}, {Exchange: "e", Queue: "q", DestinationExchange: "x"}},
		}}, []string{"topology.exchanges[0].name", "topology.queues[0].type", "topology.queues[1].type",
			"topology.bindings[0].exchange", "topology.bindings[1]"}},
		{"argument types", SessionConfig{Topology: Topology{Queues: []QueueSpec{{Name: "q",
			Arguments: map[string]any{"x-bad": struct{}{}}}}}}, []string{"topology.queues[0].arguments"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, problemFields(t, c.cfg.Validate())); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReceiverAndSenderConfigValidate(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want []string
	}{
		{"receiver ok", ReceiverConfig{Queue: "q"}.Validate(), nil},
		{"receiver without queue", ReceiverConfig{}.Validate(), []string{"queue"}},
		{"receiver limits", ReceiverConfig{Queue: "q", Prefetch: 70000, Linger: -time.Second,
			Retry: RetryConfig{Delays: []time.Duration{time.Microsecond}}}.Validate(),
			[]string{"prefetch", "linger", "retry.delays[0]"}},
		{"receiver mode", ReceiverConfig{Queue: "q", Retry: RetryConfig{Mode: "later"}}.Validate(), []string{"retry.mode"}},
		{"receiver delivery limit", ReceiverConfig{Queue: "q", DeliveryLimit: -1}.Validate(), []string{"delivery_limit"}},
		{"short signing key", ReceiverConfig{Queue: "q", Retry: RetryConfig{SigningKey: "short"}}.Validate(), []string{"retry.signing_key"}},
		{"signing key without delayed retry", ReceiverConfig{Queue: "q",
			Retry: RetryConfig{Mode: RetryRequeue, SigningKey: "0123456789abcdef"}}.Validate(), []string{"retry.signing_key"}},
		{"signing key", ReceiverConfig{Queue: "q", Retry: RetryConfig{SigningKey: "0123456789abcdef"}}.Validate(), nil},
		{"receiver linger unset", ReceiverConfig{Queue: "q", Linger: 0}.Validate(), nil},
		{"session probe interval", SessionConfig{Reconnect: ReconnectConfig{ProbeInterval: -time.Second}}.Validate(),
			[]string{"reconnect.probe_interval"}},
		{"sender ok", SenderConfig{Exchange: "e"}.Validate(), nil},
		{"sender problems", SenderConfig{DeliveryMode: "durable", MaxOutstanding: -1}.Validate(),
			[]string{"delivery_mode", "max_outstanding"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, problemFields(t, c.err)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDefaults(t *testing.T) {
	s := DefaultSessionConfig()
	r := ReceiverConfig{Queue: "orders"}.WithDefaults()
	snd := SenderConfig{}.WithDefaults()
	got := []any{s.URL, s.Heartbeat, s.Reconnect.Initial, s.Reconnect.Max, *s.Reconnect.Jitter, s.Reconnect.ProbeInterval,
		r.Retry.Mode, r.Retry.Exchange, r.Retry.QueuePrefix, r.Linger, *snd.Mandatory, snd.DeliveryMode, snd.MaxOutstanding}
	want := []any{"amqp://guest:guest@127.0.0.1:5672/", 10 * time.Second, 500 * time.Millisecond, 30 * time.Second, 0.2, time.Second,
		RetryDelayed, "orders.retry", "orders.retry.", time.Duration(0), true, Persistent, 1000}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
}

func TestReconnectDelay(t *testing.T) {
	zero := 0.0
	c := ReconnectConfig{Initial: 100 * time.Millisecond, Max: time.Second, Factor: 2, Jitter: &zero}
	var got []time.Duration
	for attempt := 1; attempt <= 6; attempt++ {
		got = append(got, c.Delay(attempt, 0.5))
	}
	want := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond,
		800 * time.Millisecond, time.Second, time.Second}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("delays (-want +got):\n%s", diff)
	}
	if d := (ReconnectConfig{}).Delay(1, 0); d != 400*time.Millisecond {
		t.Errorf("default first delay with rnd 0 = %v, want 400ms (500ms less 20%% jitter)", d)
	}
}

func TestRetryBuckets(t *testing.T) {
	bs := retryBuckets(ReceiverConfig{Queue: "q"}.WithDefaults().Retry)
	cases := []struct {
		after time.Duration
		want  string
	}{
		{0, "1s"}, {10 * time.Millisecond, "1s"}, {800 * time.Millisecond, "1s"}, {3200 * time.Millisecond, "4s"},
		{2900 * time.Millisecond, "4s"}, {2700 * time.Millisecond, "2s"}, {time.Hour, "15m"}, {45 * time.Second, "1m"},
	}
	for _, c := range cases {
		if got := nearestBucket(bs, c.after).label; got != c.want {
			t.Errorf("nearestBucket(%v) = %s, want %s", c.after, got, c.want)
		}
	}
	labels := []string{}
	for _, d := range []time.Duration{250 * time.Millisecond, 90 * time.Second, 2 * time.Hour, 1500 * time.Millisecond} {
		labels = append(labels, delayLabel(d))
	}
	if diff := cmp.Diff([]string{"250ms", "90s", "2h", "1500ms"}, labels); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
}

func TestQueueDeliveryLimit(t *testing.T) {
	topo := func(q QueueSpec) Topology { return Topology{Queues: []QueueSpec{{Name: "other", DeliveryLimit: 9}, q}} }
	cases := []struct {
		name string
		topo Topology
		cfg  ReceiverConfig
		want int
	}{
		{"none known", Topology{}, ReceiverConfig{Queue: "q"}, 0},
		{"shorthand", topo(QueueSpec{Name: "q", DeliveryLimit: 5}), ReceiverConfig{Queue: "q"}, 5},
		{"argument (YAML integer)", topo(QueueSpec{Name: "q", Arguments: map[string]any{"x-delivery-limit": 4}}), ReceiverConfig{Queue: "q"}, 4},
		{"argument (JSON number)", topo(QueueSpec{Name: "q", Arguments: map[string]any{"x-delivery-limit": 4.0}}), ReceiverConfig{Queue: "q"}, 4},
		{"argument wins over the shorthand", topo(QueueSpec{Name: "q", DeliveryLimit: 5,
			Arguments: map[string]any{"x-delivery-limit": int64(3)}}), ReceiverConfig{Queue: "q"}, 3},
		{"receiver setting for a queue declared elsewhere", Topology{}, ReceiverConfig{Queue: "q", DeliveryLimit: 7}, 7},
		{"topology wins over the receiver setting", topo(QueueSpec{Name: "q", DeliveryLimit: 5}), ReceiverConfig{Queue: "q", DeliveryLimit: 7}, 5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := queueDeliveryLimit(c.topo, c.cfg); got != c.want {
				t.Errorf("queueDeliveryLimit = %d, want %d", got, c.want)
			}
		})
	}
}
