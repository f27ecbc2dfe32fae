package sqs

import (
	"testing"

	"github.com/gobridge-oss/gobridge/core/registry"
)

// The settings blocks decode strictly, with defaults, and build.
func TestFactoriesDecodeAndBuild(t *testing.T) {
	rf, sf := ReceiverFactory(), SenderFactory()
	rc, err := rf.Decode(map[string]any{"queue": "orders", "wait_time": "5s",
		"client": map[string]any{"region": "eu-west-1", "endpoint": "http://127.0.0.1:4100", "protocol": "query",
			"access_key_id": "a", "secret_access_key": "b"}})
	if err != nil {
		t.Fatalf("receiver Decode: %v", err)
	}
	if _, err := rf.Build(t.Context(), rc, registry.Settings{MaxInFlight: 20}); err != nil {
		t.Fatalf("receiver Build: %v", err)
	}
	if _, err := rf.Decode(map[string]any{"queue": "orders", "max_messages": 11}); err == nil {
		t.Error("receiver Decode accepted max_messages 11")
	}
	if _, err := rf.Decode(map[string]any{"queue": "orders", "fifo_group": "x"}); err == nil {
		t.Error("receiver Decode accepted an unknown key")
	}
	sc, err := sf.Decode(map[string]any{"queue": "orders", "batch": false})
	if err != nil {
		t.Fatalf("sender Decode: %v", err)
	}
	if _, err := sf.Build(t.Context(), sc, registry.Settings{}); err != nil {
		t.Fatalf("sender Build: %v", err)
	}
}
