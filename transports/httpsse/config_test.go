package httpsse

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// problemsOf splits a joined Validate error into its messages.
func problemsOf(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var out []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		if !errors.Is(e, fault.ErrInvalidConfig) {
			t.Errorf("problem %v is not INVALID_CONFIG", e)
		}
		out = append(out, strings.TrimPrefix(e.Error(), "INVALID_CONFIG: "))
	}
	return out
}

func TestReceiverConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  ReceiverConfig
		want []string
	}{
		{"defaults", ReceiverConfig{}, nil},
		{"raw with types", ReceiverConfig{Body: BodyRaw, ContentTypes: []string{"text/*", "application/octet-stream"}}, nil},
		{"everything wrong", ReceiverConfig{
			Paths:          []string{"publish", "/a/{topic}", "/b/{subject}/{subject}", "/ok", "/ok"},
			Body:           "xml",
			ContentTypes:   []string{"json", "text/plain; charset=utf-8"},
			MaxBodyBytes:   -1,
			BearerKeys:     []string{"", "has space"},
			ForwardHeaders: []string{"Bad Header"},
			AcceptedStatus: 201 + 300,
			ReadTimeout:    -time.Second,
			HoldTimeout:    time.Minute, WriteTimeout: 30 * time.Second,
			HealthPath: "/ok",
		}, []string{
			`paths[0]: "publish" must start with /`,
			`paths[1]: "/a/{topic}": the only wildcard allowed is {subject} or {subject...}, got "{topic}"`,
			`paths[2]: "/b/{subject}/{subject}" has more than one wildcard`,
			`paths[4]: "/ok" is listed twice`,
			`body: "xml" is invalid; must be envelope or raw`,
			`content_types[0]: "json" is not a media type such as application/json or text/*`,
			`content_types[1]: "text/plain; charset=utf-8" is not a media type such as application/json or text/*`,
			`max_body_bytes: must not be negative, got -1`,
			`bearer_keys[0]: must be a non-empty token without spaces or control characters`,
			`bearer_keys[1]: must be a non-empty token without spaces or control characters`,
			`forward_headers[0]: "Bad Header" is not an HTTP header name`,
			`accepted_status: must be 200, 201, 202 or 204, got 501`,
			`read_timeout: must not be negative, got -1000000000`,
			`hold_timeout: must be shorter than write_timeout (30s), got 1m0s`,
			`health_path: "/ok" is also an ingress path`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, problemsOf(t, tt.cfg.Validate())); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := NewReceiver(ReceiverConfig{Body: "xml"}); err == nil {
		t.Error("NewReceiver accepted an invalid config")
	}
}

func TestReceiverDefaults(t *testing.T) {
	want := ReceiverConfig{
		Listen: ":8080", Paths: []string{"/publish", "/publish/{subject...}"}, Body: BodyEnvelope,
		ContentTypes: []string{"application/json"}, MaxBodyBytes: 1 << 20, MaxHeaderBytes: 64 << 10,
		AcceptedStatus: 200, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: time.Minute, IdleTimeout: 2 * time.Minute, HoldTimeout: 50 * time.Second,
		ShutdownTimeout: 30 * time.Second, HealthPath: "/healthz",
	}
	if diff := cmp.Diff(want, DefaultReceiverConfig()); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
	if raw := (ReceiverConfig{Body: BodyRaw}).WithDefaults(); raw.ContentTypes != nil {
		t.Errorf("raw bodies accept any type by default, got %v", raw.ContentTypes)
	}
}

func TestSSEConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  SSEConfig
		want []string
	}{
		{"defaults", SSEConfig{}, nil},
		{"everything wrong", SSEConfig{
			Path: "/events/", DefaultChannel: strings.Repeat("c", 300), ReplayBuffer: -1, ClientBuffer: -2,
			HeartbeatInterval: -time.Second, NoSubscriber: "block", BearerKeys: []string{" "},
			AllowOrigins: []string{"*", "https://ok.example", "ftp://x", "https://x/path"},
		}, []string{
			`path: "/events/" must not end with /`,
			`default_channel: channel name longer than 256 bytes`,
			`replay_buffer: must not be negative, got -1`,
			`client_buffer: must not be negative, got -2`,
			`heartbeat_interval: must not be negative, got -1s`,
			`no_subscriber: "block" is invalid; must be accept or refuse`,
			`bearer_keys[0]: must be a non-empty token without spaces or control characters`,
			`allow_origins[2]: "ftp://x" is not an origin such as https://app.example.com or *`,
			`allow_origins[3]: "https://x/path" is not an origin such as https://app.example.com or *`,
		}},
		{"path wildcard", SSEConfig{Path: "/e/{x}"}, []string{`path: "/e/{x}" may not contain wildcards`}},
		{"replay log", SSEConfig{
			ReplayFrom: "oldest", ReplayLog: "disk", LogMaxEvents: -1, LogMaxBytes: -2, LogMaxAge: -time.Second,
			Channels: map[string]SSEChannelConfig{"": {}, "ok": {ReplayFrom: ReplayFromEarliest, LogMaxEvents: 5},
				"x": {ReplayFrom: "first", LogMaxAge: -time.Minute}},
		}, []string{
			`replay_from: "oldest" is invalid; must be live or earliest`,
			`replay_log: "disk" is invalid; must be auto, store or memory`,
			`log_max_events: must not be negative, got -1`,
			`log_max_bytes: must not be negative, got -2`,
			`log_max_age: must not be negative, got -1s`,
			`channels: empty channel name`,
			`channels.x.replay_from: "first" is invalid; must be live or earliest`,
			`channels.x.log_max_age: must not be negative, got -1m0s`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, problemsOf(t, tt.cfg.Validate())); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
	if got := DefaultSSEConfig(); got.NoSubscriber != NoSubscriberAccept || got.ReplayBuffer != 1000 || got.ClientBuffer != 256 ||
		got.ReplayFrom != ReplayFromLive || got.ReplayLog != ReplayLogAuto ||
		got.LogMaxEvents != 10000 || got.LogMaxBytes != 64<<20 || got.LogMaxAge != 24*time.Hour {
		t.Errorf("defaults %+v", got)
	}
}

func TestWebhookConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  WebhookConfig
		want []string
	}{
		{"defaults", WebhookConfig{}, nil},
		{"full", WebhookConfig{URL: "https://hooks.example/in/", Batch: true, Headers: map[string]string{"Authorization": "Bearer x"},
			HeaderMap: map[string]string{"tenant": "X-Tenant"}, SigningSecret: "s"}, nil},
		{"everything wrong", WebhookConfig{
			URL: "ftp://hooks.example/secret", Body: BodyRaw, Batch: true, MaxBatchSize: -1,
			Headers:   map[string]string{"Content-Length": "1", "X-Ok": "a\nb"},
			HeaderMap: map[string]string{"tenant": "Bad Name"}, HeaderPrefix: "X Meta", SignatureHeader: "a:b",
			ContentType: "text", Timeout: -1,
		}, []string{
			`url: "ftp://hooks.example/…" must be an absolute http or https URL`,
			`batch: needs body envelope: a batch is a JSON array of envelopes`,
			`max_batch_size: must not be negative, got -1`,
			`headers.Content-Length: is not a header name a request may set`,
			`headers.X-Ok: value contains control characters`,
			`header_map.tenant: "Bad Name" is not a header name a request may set`,
			`header_prefix: "X Meta" may only hold header-name characters`,
			`signature_header: "a:b" is not an HTTP header name`,
			`content_type: "text" is not a media type`,
			`timeout: must not be negative, got -1`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, problemsOf(t, tt.cfg.Validate())); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}
