package config

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRedactText hides URL passwords and credential-like query values and
// leaves everything else as written.
func TestRedactText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"amqp://guest:guest@127.0.0.1:5672/", "amqp://guest:<redacted>@127.0.0.1:5672/"},
		{"amqps://user:p/a?s#s@host/vh", "amqps://user:<redacted>@host/vh"},
		{"mqtt://user@host:1883", "mqtt://user@host:1883"},
		{"https://hooks.example.com/x?token=abc123&page=2", "https://hooks.example.com/x?token=<redacted>&page=2"},
		{"https://h/x?X-Amz-Signature=ff&X-Amz-Credential=c&api_key=k&sig=s#frag", "https://h/x?X-Amz-Signature=<redacted>&X-Amz-Credential=<redacted>&api_key=<redacted>&sig=<redacted>#frag"},
		{"https://h/x?access%5Ftoken=abc", "https://h/x?access%5Ftoken=<redacted>"},
		{"dial amqp://u:pw@h:1/ failed; retry https://h/?password=pw2", "dial amqp://u:<redacted>@h:1/ failed; retry https://h/?password=<redacted>"},
		{"no url here: token=abc", "no url here: token=abc"},
		{"https://h/path?q=1&empty_token=", "https://h/path?q=1&empty_token="},
	}
	for _, tt := range tests {
		if got := RedactText(tt.in); got != tt.want {
			t.Errorf("RedactText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestRedactedHidesSecretsMarkedInTheSchema redacts plugin settings by
// the x-secret and writeOnly marks of their schema, model fields tagged
// secret, and URL credentials anywhere.
func TestRedactedHidesSecretsMarkedInTheSchema(t *testing.T) {
	f, err := Parse([]byte(`
bridge: {id: b}
sessions:
  - {id: s, type: broker, settings: {url: "amqp://app:broker-pass@mq:5672/", user: app}}
senders:
  - id: hook
    type: webhook
    settings:
      url: "https://hooks.example.com/in?token=query-token&team=ops"
      headers: {Authorization: "Bearer header-token", X-Team: ops}
      nested: {list: [{key: nested-secret, name: visible}]}
      keys: [key-one, key-two]
      empty: ""
bindings:
  - {id: b1, sender_id: hook, address: "https://other.example.com/?sig=addr-sig"}
routes: [{id: r, receiver_id: s, bindings: [b1]}]
http: {admin_api_key: admin-key-0123456789, monitor_api_key: monitor-key-0123456789}
`), WithEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	plugins := map[string]map[string]json.RawMessage{
		KindSender: {"webhook": json.RawMessage(`{"type":"object","properties":{
			"url":{"type":"string"},
			"headers":{"type":"object","writeOnly":true,"x-secret":true,"additionalProperties":{"type":"string"}},
			"nested":{"type":"object","properties":{"list":{"type":"array","items":{"type":"object","properties":{"key":{"type":"string","x-secret":true},"name":{"type":"string"}}}}}},
			"keys":{"type":"array","x-secret":true,"items":{"type":"string"}},
			"empty":{"type":"string","x-secret":true}}}`)},
	}
	red := f.Redacted(plugins)
	got := map[string]any{
		"session":  red["sessions"].([]any)[0].(map[string]any)["settings"],
		"hook":     red["senders"].([]any)[0].(map[string]any)["settings"],
		"address":  red["bindings"].([]any)[0].(map[string]any)["address"],
		"adminKey": red["http"].(map[string]any)["admin_api_key"],
		"monKey":   red["http"].(map[string]any)["monitor_api_key"],
	}
	want := map[string]any{
		"session": map[string]any{"url": "amqp://app:<redacted>@mq:5672/", "user": "app"},
		"hook": map[string]any{
			"url":     "https://hooks.example.com/in?token=<redacted>&team=ops",
			"headers": map[string]any{"Authorization": RedactedValue, "X-Team": RedactedValue},
			"nested":  map[string]any{"list": []any{map[string]any{"key": RedactedValue, "name": "visible"}}},
			"keys":    []any{RedactedValue, RedactedValue},
			"empty":   "",
		},
		"address":  "https://other.example.com/?sig=<redacted>",
		"adminKey": RedactedValue,
		"monKey":   RedactedValue,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Redacted (-want +got):\n%s", diff)
	}
	for _, s := range []string{"broker-pass", "query-token", "header-token", "nested-secret", "key-one", "addr-sig", "admin-key", "monitor-key"} {
		if flat := flatten(red); strings.Contains(flat, s) {
			t.Errorf("Redacted leaks %q", s)
		}
	}
}

// TestSchemaMarksSecretFields checks the model's secret fields carry
// writeOnly and x-secret in the JSON Schema.
func TestSchemaMarksSecretFields(t *testing.T) {
	out, err := Schema(nil)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Properties struct {
			HTTP struct {
				Properties map[string]map[string]any `json:"properties"`
			} `json:"http"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	for key, secret := range map[string]bool{"admin_api_key": true, "monitor_api_key": true, "admin_addr": false, "api_key_overlap": false} {
		p := doc.Properties.HTTP.Properties[key]
		if p == nil {
			t.Errorf("http.%s missing from the schema", key)
			continue
		}
		if got := p["writeOnly"] == true && p["x-secret"] == true; got != secret {
			t.Errorf("http.%s marked secret = %v, want %v (%v)", key, got, secret, p)
		}
	}
}
