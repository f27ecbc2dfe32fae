package httpsse

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBearerKeysShorterThanTheAdminMinimumAreRefused applies the admin
// API's rule (at least 16 characters) to the keys of the ingress and of
// the SSE sender. The problem never quotes the key.
func TestBearerKeysShorterThanTheAdminMinimumAreRefused(t *testing.T) {
	tests := []struct {
		name string
		key  string
		want []string
	}{
		{"16 characters", strings.Repeat("k", 16), nil},
		{"15 characters", strings.Repeat("k", 15), []string{`bearer_keys[0]: must be at least 16 characters, got 15`}},
		{"one character", "k", []string{`bearer_keys[0]: must be at least 16 characters, got 1`}},
		{"16 characters in more bytes", strings.Repeat("é", 16), nil},
		{"15 characters in 30 bytes", strings.Repeat("é", 15), []string{`bearer_keys[0]: must be at least 16 characters, got 15`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ingress := problemsOf(t, ReceiverConfig{BearerKeys: []string{tt.key}}.Validate())
			if diff := cmp.Diff(tt.want, ingress); diff != "" {
				t.Errorf("ingress problems (-want +got):\n%s", diff)
			}
			sse := problemsOf(t, SSEConfig{BearerKeys: []string{tt.key}}.Validate())
			if diff := cmp.Diff(tt.want, sse); diff != "" {
				t.Errorf("sse problems (-want +got):\n%s", diff)
			}
		})
	}
	if MinBearerKeyLength != 16 {
		t.Errorf("MinBearerKeyLength = %d, want the admin API's 16", MinBearerKeyLength)
	}
}

// TestSSEAccessConfigValidate covers the subscription limits, the replay
// buffer's byte bounds and allowed_channels.
func TestSSEAccessConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  SSEConfig
		want []string
	}{
		{"list and patterns", SSEConfig{AllowedChannels: []string{"orders", "tenant-*"}, DefaultChannel: "orders",
			Channels: map[string]SSEChannelConfig{"tenant-a": {LogMaxEvents: 5}}}, nil},
		{"negative limits", SSEConfig{MaxSubscribersPerChannel: -1, MaxClientsPerAddress: -2, ReplayBufferBytes: -3, ReplayBufferTotalBytes: -4},
			[]string{
				`max_subscribers_per_channel: must not be negative, got -1`,
				`max_clients_per_address: must not be negative, got -2`,
				`replay_buffer_bytes: must not be negative, got -3`,
				`replay_buffer_total_bytes: must not be negative, got -4`,
			}},
		{"negative memory log bound", SSEConfig{MemoryLogMaxBytes: -1}, []string{`memory_log_max_bytes: must not be negative, got -1`}},
		{"bad patterns", SSEConfig{AllowedChannels: []string{"", "a[", strings.Repeat("c", 300)}}, []string{
			`allowed_channels[0]: empty channel name`,
			`allowed_channels[1]: "a[" is not a valid pattern: syntax error in pattern`,
			`allowed_channels[2]: channel name longer than 256 bytes`,
		}},
		{"configured channels outside the list", SSEConfig{AllowedChannels: []string{"orders"}, DefaultChannel: "misc",
			Channels: map[string]SSEChannelConfig{"audit": {LogMaxEvents: 5}}}, []string{
			`default_channel: "misc" is not matched by allowed_channels`,
			`channels: "audit" is not matched by allowed_channels`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, problemsOf(t, tt.cfg.Validate())); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
	d := DefaultSSEConfig()
	got := []int64{int64(d.MaxSubscribersPerChannel), int64(d.MaxClientsPerAddress), d.ReplayBufferBytes, d.ReplayBufferTotalBytes, d.MemoryLogMaxBytes}
	if diff := cmp.Diff([]int64{1000, 64, 8 << 20, 128 << 20, 256 << 20}, got); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
}

// TestSecuritySettingsDecodeFromConfigFiles reads the new keys the way
// the distro does, from a settings block.
func TestSecuritySettingsDecodeFromConfigFiles(t *testing.T) {
	in, err := ReceiverFactory().Decode(map[string]any{"allow_origins": []any{"https://app.example"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := in.(ReceiverConfig).AllowOrigins; !cmp.Equal(got, []string{"https://app.example"}) {
		t.Errorf("allow_origins = %v", got)
	}
	out, err := SSEFactory().Decode(map[string]any{
		"allowed_channels": []any{"orders", "tenant-*"}, "max_subscribers_per_channel": 5, "max_clients_per_address": 6,
		"replay_buffer_bytes": 7, "replay_buffer_total_bytes": 8, "memory_log_max_bytes": 9,
	})
	if err != nil {
		t.Fatal(err)
	}
	c := out.(SSEConfig)
	got := []any{c.AllowedChannels, c.MaxSubscribersPerChannel, c.MaxClientsPerAddress, c.ReplayBufferBytes, c.ReplayBufferTotalBytes, c.MemoryLogMaxBytes}
	want := []any{[]string{"orders", "tenant-*"}, 5, 6, int64(7), int64(8), int64(9)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decoded (-want +got):\n%s", diff)
	}
}
