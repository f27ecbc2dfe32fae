module github.com/gobridge-oss/gobridge/transports/amqp10

go 1.26.0

require (
	github.com/Azure/go-amqp v1.7.0
	github.com/gobridge-oss/gobridge/core v0.0.0
	github.com/google/go-cmp v0.7.0
	github.com/rabbitmq/amqp091-go v1.17.0
)

require (
	github.com/go-viper/mapstructure/v2 v2.5.0 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
)

replace github.com/gobridge-oss/gobridge/core => ../../core
