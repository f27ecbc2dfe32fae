package dynamodb

import (
	"context"

	"github.com/gobridge-oss/gobridge/core/registry"
)

// FactoryType is the type name of this store in configuration files.
const FactoryType = "dynamodb"

// Factory returns the registry factory of the DynamoDB store: outbox, DLQ
// and lease in three tables that several bridges may share.
func Factory() registry.StoreFactory {
	return registry.WithLocality(storeFactory(), registry.LocalityCluster)
}

// storeFactory builds the store from its settings.
func storeFactory() registry.StoreFactory {
	return registry.Store(FactoryType, "outbox, DLQ and lease in DynamoDB tables that bridges on several machines share",
		func(ctx context.Context, cfg Config, d registry.Settings) (any, error) {
			opts := []Option{WithLogger(d.Logger), WithClock(d.Clock)}
			if d.Meter != nil {
				opts = append(opts, WithMetrics(d.Meter, d.ID))
			}
			return Open(ctx, cfg, opts...)
		})
}
