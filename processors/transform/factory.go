package transform

import (
	"context"

	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/registry"
)

// FactoryType is the type name of this processor in configuration files.
const FactoryType = "transform"

// Factory returns the registry factory that builds this processor from a
// configuration file's processors map. The entry's name becomes the
// processor's Name; its settings are the fields of Config.
func Factory() registry.ProcessorFactory {
	return registry.Processor(FactoryType, "reshapes JSON payloads with field mappings",
		func(_ context.Context, cfg Config, d registry.Settings) (ports.Processor, error) {
			if d.ID != "" {
				cfg.Name = d.ID
			}
			return New(cfg, WithLogger(d.Logger), WithMeter(d.Meter))
		})
}
