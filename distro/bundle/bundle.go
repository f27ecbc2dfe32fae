// Package bundle lists the plugins the gobridge distro ships. A custom
// distro copies this file and keeps the lines it wants: nothing registers
// itself, so a binary holds exactly the plugins listed here.
package bundle

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

// Factories returns every factory the distro bundles.
func Factories() []registry.Factory {
	return []registry.Factory{
		httpsse.ReceiverFactory(),
		httpsse.SSEFactory(),
		httpsse.WebhookFactory(),
		mqtt.SessionFactory(),
		mqtt.ReceiverFactory(),
		mqtt.SenderFactory(),
		amqp091.SessionFactory(),
		amqp091.ReceiverFactory(),
		amqp091.SenderFactory(),
		amqp10.SessionFactory(),
		amqp10.ReceiverFactory(),
		amqp10.SenderFactory(),
		sqs.ReceiverFactory(),
		sqs.SenderFactory(),
		servicebus.ReceiverFactory(),
		servicebus.SenderFactory(),
		filter.Factory(),
		transform.Factory(),
		circuitbreaker.Factory(),
		tenant.Factory(),
		memory.Factory(),
		sqlite.Factory(),
		dynamodb.Factory(),
	}
}

// Modules lists the plugin modules the distro bundles, by module path. A
// test checks it against the repository, so adding a plugin module without
// bundling it fails the build.
func Modules() []string {
	return []string{
		"github.com/gobridge-oss/gobridge/processors/circuitbreaker",
		"github.com/gobridge-oss/gobridge/processors/filter",
		"github.com/gobridge-oss/gobridge/processors/tenant",
		"github.com/gobridge-oss/gobridge/processors/transform",
		"github.com/gobridge-oss/gobridge/stores/dynamodb",
		"github.com/gobridge-oss/gobridge/stores/memory",
		"github.com/gobridge-oss/gobridge/stores/sqlite",
		"github.com/gobridge-oss/gobridge/transports/amqp091",
		"github.com/gobridge-oss/gobridge/transports/amqp10",
		"github.com/gobridge-oss/gobridge/transports/httpsse",
		"github.com/gobridge-oss/gobridge/transports/mqtt",
		"github.com/gobridge-oss/gobridge/transports/servicebus",
		"github.com/gobridge-oss/gobridge/transports/sqs",
	}
}

// Registry returns a registry holding Factories.
func Registry() (*registry.Registry, error) {
	r := registry.New()
	if err := r.Add(Factories()...); err != nil {
		return nil, err
	}
	return r, nil
}
