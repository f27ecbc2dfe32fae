package servicebus

import (
	"testing"

	"github.com/gobridge-oss/gobridge/core/registry"
)

const testConnString = "Endpoint=sb://127.0.0.1:5672/;SharedAccessKeyName=k;SharedAccessKey=secret;UseDevelopmentEmulator=true"

// The settings blocks decode strictly, with defaults, and build without
// reaching the namespace.
func TestFactoriesDecodeAndBuild(t *testing.T) {
	rf, sf := ReceiverFactory(), SenderFactory()
	if rf.Type() != "servicebus" || sf.Type() != "servicebus" {
		t.Fatalf("types %q %q", rf.Type(), sf.Type())
	}
	rc, err := rf.Decode(map[string]any{"queue": "orders", "session_idle_timeout": "5s",
		"client": map[string]any{"connection_string": testConnString}})
	if err != nil {
		t.Fatalf("receiver Decode: %v", err)
	}
	r, err := rf.Build(t.Context(), rc, registry.Settings{ID: "sb-in", MaxInFlight: 20})
	if err != nil {
		t.Fatalf("receiver Build: %v", err)
	}
	if err := r.(*Receiver).Close(t.Context()); err != nil {
		t.Errorf("receiver Close: %v", err)
	}
	if _, err := rf.Decode(map[string]any{"queue": "orders", "retry": "schedule",
		"client": map[string]any{"connection_string": testConnString}}); err == nil {
		t.Error("receiver Decode accepted retry: schedule")
	}
	if _, err := rf.Decode(map[string]any{"queue": "orders", "prefetch": 3,
		"client": map[string]any{"connection_string": testConnString}}); err == nil {
		t.Error("receiver Decode accepted an unknown key")
	}
	sc, err := sf.Decode(map[string]any{"entity": "orders", "session_id_header": "x-bridge.ordering-key", "minimal_headers": true,
		"client": map[string]any{"namespace": "myns.servicebus.windows.net", "credential": map[string]any{"kind": "managed_identity"}}})
	if err != nil {
		t.Fatalf("sender Decode: %v", err)
	}
	s, err := sf.Build(t.Context(), sc, registry.Settings{})
	if err != nil {
		t.Fatalf("sender Build: %v", err)
	}
	if !s.(*Sender).cfg.MinimalHeaders {
		t.Error("sender Build dropped minimal_headers")
	}
	if err := s.(*Sender).Close(t.Context()); err != nil {
		t.Errorf("sender Close: %v", err)
	}
}
