module github.com/gobridge-oss/gobridge/transports/httpsse

go 1.26

require (
	github.com/gobridge-oss/gobridge/core v0.0.0
	github.com/google/go-cmp v0.7.0
)

replace github.com/gobridge-oss/gobridge/core => ../../core
