package memory

import (
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/registry"
)

func TestFactoryBuildsAStore(t *testing.T) {
	f := Factory()
	cfg, err := f.Decode(map[string]any{"stale_claim_age": "5s"})
	if err != nil {
		t.Fatal(err)
	}
	v, err := f.Build(t.Context(), cfg, registry.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	s := v.(*Store)
	if s.StaleClaimAge() != 5*time.Second {
		t.Errorf("stale claim age %v", s.StaleClaimAge())
	}
	var _ ports.DLQStore = s
	if _, err := f.Decode(map[string]any{"stale": "5s"}); err == nil {
		t.Error("unknown key accepted")
	}
}
