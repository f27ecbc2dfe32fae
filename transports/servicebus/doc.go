// Package servicebus moves messages to and from Azure Service Bus queues and
// topic subscriptions on the azservicebus SDK.
package servicebus
