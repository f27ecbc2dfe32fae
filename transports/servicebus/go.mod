module github.com/gobridge-oss/gobridge/transports/servicebus

go 1.26.0

replace github.com/gobridge-oss/gobridge/core => ../../core

require (
	github.com/Azure/azure-sdk-for-go/sdk/azcore v1.23.0 // indirect
	github.com/Azure/azure-sdk-for-go/sdk/internal v1.12.0 // indirect
	github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus v1.11.0 // indirect
	github.com/Azure/go-amqp v1.7.0 // indirect
	github.com/gobridge-oss/gobridge/core v0.0.0 // indirect
	golang.org/x/net v0.58.0 // indirect
	golang.org/x/text v0.41.0 // indirect
)
