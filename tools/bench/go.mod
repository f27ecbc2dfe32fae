module github.com/gobridge-oss/gobridge/tools/bench

go 1.26.0

require (
	github.com/eclipse/paho.golang v0.23.0
	github.com/google/go-cmp v0.7.0
	github.com/rabbitmq/amqp091-go v1.17.0
)
