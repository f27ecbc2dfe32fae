package servicebus

import "github.com/gobridge-oss/gobridge/core/registry"

// Factories returns every factory of this module, for a distro's
// component list: a builder-generated distro calls it for each plugin
// module its manifest names. The receivers and senders they build share
// one client (one AMQP connection) per distinct client setting.
func Factories() []registry.Factory {
	pool := newClientPool()
	return []registry.Factory{
		receiverFactory(pool),
		senderFactory(pool),
	}
}
