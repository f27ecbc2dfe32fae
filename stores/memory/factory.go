package memory

import (
	"context"
	"time"

	"github.com/gobridge-oss/gobridge/core/registry"
)

// FactoryType is the type name of this store in configuration files.
const FactoryType = "memory"

// FactoryConfig is the settings block of a `type: memory` store.
type FactoryConfig struct {
	// StaleClaimAge is how long a claim may stay uncompleted before its
	// records can be claimed again (default ports.DefaultStaleClaimAge).
	StaleClaimAge time.Duration `yaml:"stale_claim_age" json:"stale_claim_age"`
}

// Factory returns the registry factory of the in-memory store. Everything
// it holds is lost when the process ends, so it suits tests and demos.
func Factory() registry.StoreFactory {
	return registry.WithLocality(storeFactory(), registry.LocalityProcess)
}

// storeFactory builds the store from its settings.
func storeFactory() registry.StoreFactory {
	return registry.Store(FactoryType, "in-memory outbox, DLQ and lease (lost on exit)",
		func(_ context.Context, cfg FactoryConfig, d registry.Settings) (any, error) {
			return New(WithStaleClaimAge(cfg.StaleClaimAge), WithClock(d.Clock)), nil
		})
}
