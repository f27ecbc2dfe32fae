module github.com/gobridge-oss/gobridge/tools

go 1.26

// amqp091-go backs cmd/amqppublish, the publisher the examples' headers
// use on a RabbitMQ without the management plugin (no rabbitmqadmin).
require github.com/rabbitmq/amqp091-go v1.17.0

require github.com/google/go-cmp v0.7.0
