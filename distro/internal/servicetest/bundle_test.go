package servicetest

import (
	"github.com/gobridge-oss/gobridge/core/registry"
	"github.com/gobridge-oss/gobridge/processors/circuitbreaker"
	"github.com/gobridge-oss/gobridge/processors/filter"
	"github.com/gobridge-oss/gobridge/processors/tenant"
	"github.com/gobridge-oss/gobridge/processors/transform"
	"github.com/gobridge-oss/gobridge/stores/dynamodb"
	"github.com/gobridge-oss/gobridge/stores/memory"
	"github.com/gobridge-oss/gobridge/stores/sqlite"
	"github.com/gobridge-oss/gobridge/transports/amqp091"
	"github.com/gobridge-oss/gobridge/transports/amqp10"
	"github.com/gobridge-oss/gobridge/transports/httpsse"
	"github.com/gobridge-oss/gobridge/transports/mqtt"
	"github.com/gobridge-oss/gobridge/transports/servicebus"
	"github.com/gobridge-oss/gobridge/transports/sqs"
)

// bundledFactories returns every plugin's factories, as the distro
// bundles them.
func bundledFactories() []registry.Factory {
	var fs []registry.Factory
	for _, f := range [][]registry.Factory{
		circuitbreaker.Factories(), filter.Factories(), tenant.Factories(), transform.Factories(),
		dynamodb.Factories(), memory.Factories(), sqlite.Factories(),
		amqp091.Factories(), amqp10.Factories(), httpsse.Factories(), mqtt.Factories(),
		servicebus.Factories(), sqs.Factories(),
	} {
		fs = append(fs, f...)
	}
	return fs
}

// bundledRegistry returns a registry holding bundledFactories.
func bundledRegistry() (*registry.Registry, error) {
	r := registry.New()
	if err := r.Add(bundledFactories()...); err != nil {
		return nil, err
	}
	return r, nil
}
