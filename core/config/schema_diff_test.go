package config

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestSchema(t *testing.T) {
	plugins := map[string]map[string]json.RawMessage{
		KindSender: {
			"sqs":  json.RawMessage(`{"type":"object","properties":{"queue_url":{"type":"string"}}}`),
			"mqtt": json.RawMessage(`{"type":"object"}`),
		},
		KindStore: {"sqlite": json.RawMessage(`{"type":"object"}`)},
	}
	out, err := Schema(plugins)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Schema     string                     `json:"$schema"`
		Properties map[string]json.RawMessage `json:"properties"`
		Defs       map[string]struct {
			OneOf []struct {
				Properties struct {
					Type     struct{ Const string } `json:"type"`
					Settings json.RawMessage        `json:"settings"`
				} `json:"properties"`
			} `json:"oneOf"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("Schema() is not valid JSON: %v", err)
	}
	if doc.Schema != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("$schema = %q", doc.Schema)
	}
	var keys []string
	for k := range doc.Properties {
		keys = append(keys, k)
	}
	want := []string{"bindings", "bridge", "http", "processors", "receivers", "routes", "senders", "sessions", "stores", "telemetry"}
	if diff := cmp.Diff(want, keys, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("top-level keys (-want +got):\n%s", diff)
	}
	var types []string
	for _, b := range doc.Defs[KindSender].OneOf {
		types = append(types, b.Properties.Type.Const)
	}
	if !slices.Equal(types, []string{"mqtt", "sqs"}) {
		t.Errorf("sender oneOf types = %v", types)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, doc.Defs[KindSender].OneOf[1].Properties.Settings); err != nil || compact.String() != string(plugins[KindSender]["sqs"]) {
		t.Errorf("sqs settings schema = %s (%v)", compact.String(), err)
	}
	if _, err := Schema(map[string]map[string]json.RawMessage{"gadget": {}}); err == nil {
		t.Error("Schema(unknown kind) succeeded")
	}
	if _, err := Schema(map[string]map[string]json.RawMessage{KindStore: {"x": json.RawMessage(`{`)}}); err == nil {
		t.Error("Schema(invalid plugin JSON) succeeded")
	}
}

func TestDiff(t *testing.T) {
	tests := []struct {
		name string
		mut  func(f *File)
		want ReloadPlan
	}{
		{"nothing", func(*File) {}, ReloadPlan{}},
		{"route added", func(f *File) { f.Routes = append(f.Routes, Route{ID: "r1"}) }, ReloadPlan{Added: []string{"r1"}}},
		{"route removed", func(f *File) { f.Routes = nil }, ReloadPlan{Removed: []string{"r0"}}},
		{"route policy", func(f *File) { f.Routes[0].Policy.MaxInFlight = 7 }, ReloadPlan{Changed: []string{"r0"}}},
		{"receiver settings", func(f *File) { f.Receivers[0].Settings = map[string]any{"x": 1} }, ReloadPlan{Changed: []string{"r0"}}},
		{"binding address", func(f *File) { f.Bindings[1].Address = "elsewhere" }, ReloadPlan{Changed: []string{"r0"}}},
		{"sender of a binding", func(f *File) { f.Senders[0].Type = "sqs" }, ReloadPlan{Changed: []string{"r0"}}},
		{"session of a sender", func(f *File) {
			f.Bindings[0].SenderID = "out2"
			old := base(t)
			old.Bindings[0].SenderID = "out2"
			*f = *old
			f.Sessions[0].Settings = map[string]any{"url": "tcp://b"}
		}, ReloadPlan{Changed: []string{"r0"}}},
		{"processor settings", func(f *File) { f.Processors["p1"] = Processor{Type: "filter", Settings: map[string]any{"a": 1}} }, ReloadPlan{Changed: []string{"r0"}}},
		{"unused sender", func(f *File) { f.Senders[1].Type = "other" }, ReloadPlan{}},
		{"api key rotation", func(f *File) { f.HTTP.AdminAPIKey = "another-key-0123456" }, ReloadPlan{}},
		{"key overlap and posted refs are applied by a reload", func(f *File) {
			f.HTTP.MonitorAPIKey = "monitor-key-0123456"
			f.HTTP.APIKeyOverlap = time.Hour
			f.HTTP.PostedConfigRefs = []string{"env:X"}
		}, ReloadPlan{}},
		{"cors and tls need a restart", func(f *File) {
			f.HTTP.CORSOrigins = []string{"https://ops"}
			f.HTTP.TLSCertFile, f.HTTP.TLSKeyFile = "c", "k"
		}, ReloadPlan{RestartRequired: []Warning{
			{"http.cors_origins", "the admin and monitor listeners are bound at start; restart to apply"},
			{"http.tls_cert_file", "the admin and monitor listeners are bound at start; restart to apply"},
			{"http.tls_key_file", "the admin and monitor listeners are bound at start; restart to apply"}}}},
		{"http address", func(f *File) { f.HTTP.AdminAddr = ":9999" }, ReloadPlan{RestartRequired: []Warning{
			{"http.admin_addr", "the admin and monitor listeners are bound at start; restart to apply"}}}},
		{"http removed", func(f *File) { f.HTTP = nil }, ReloadPlan{RestartRequired: []Warning{
			{"http", "the running listeners keep serving after the http block is removed; restart to apply"}}}},
		{"stores and bridge", func(f *File) { f.Stores.DLQ = nil; f.Bridge.ShutdownTimeout = time.Minute }, ReloadPlan{RestartRequired: []Warning{
			{"bridge.shutdown_timeout", "the bridge identity and shutdown settings are read at start; restart to apply"},
			{"stores.dlq", "stores are opened at start and shared by every route; restart to apply"}}}},
		{"telemetry", func(f *File) { f.Telemetry.LogLevel = "debug" }, ReloadPlan{RestartRequired: []Warning{
			{"telemetry.log_level", "logging and metrics are set up at start; restart to apply"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old, new := base(t), base(t)
			tt.mut(new)
			if diff := cmp.Diff(tt.want, Diff(old, new), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Diff (-want +got):\n%s", diff)
			}
		})
	}
	if got := Diff(nil, base(t)); !slices.Equal(got.Added, []string{"r0"}) || got.Empty() {
		t.Errorf("Diff(nil, f) = %+v", got)
	}
}
