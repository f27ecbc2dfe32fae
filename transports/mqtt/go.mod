module github.com/gobridge-oss/gobridge/transports/mqtt

go 1.26.0

require (
	github.com/eclipse/paho.golang v0.23.0
	github.com/gobridge-oss/gobridge/core v0.0.0
	github.com/google/go-cmp v0.7.0
	github.com/gorilla/websocket v1.5.3
)

require (
	github.com/go-viper/mapstructure/v2 v2.5.0 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
	golang.org/x/net v0.59.0 // indirect
)

replace github.com/gobridge-oss/gobridge/core => ../../core
