module github.com/gobridge-oss/gobridge/distro

go 1.26.0

require (
	github.com/gobridge-oss/gobridge/core v0.0.0
	github.com/gobridge-oss/gobridge/processors/circuitbreaker v0.0.0
	github.com/gobridge-oss/gobridge/processors/filter v0.0.0
	github.com/gobridge-oss/gobridge/processors/tenant v0.0.0
	github.com/gobridge-oss/gobridge/processors/transform v0.0.0
	github.com/gobridge-oss/gobridge/stores/memory v0.0.0
	github.com/gobridge-oss/gobridge/stores/sqlite v0.0.0
	github.com/gobridge-oss/gobridge/transports/httpsse v0.0.0
	github.com/google/go-cmp v0.7.0
)

require (
	github.com/go-viper/mapstructure/v2 v2.5.0 // indirect
	github.com/mattn/go-sqlite3 v1.14.53 // indirect
)

replace (
	github.com/gobridge-oss/gobridge/core => ../core
	github.com/gobridge-oss/gobridge/examples => ../examples
	github.com/gobridge-oss/gobridge/processors/circuitbreaker => ../processors/circuitbreaker
	github.com/gobridge-oss/gobridge/processors/filter => ../processors/filter
	github.com/gobridge-oss/gobridge/processors/tenant => ../processors/tenant
	github.com/gobridge-oss/gobridge/processors/transform => ../processors/transform
	github.com/gobridge-oss/gobridge/stores/memory => ../stores/memory
	github.com/gobridge-oss/gobridge/stores/sqlite => ../stores/sqlite
	github.com/gobridge-oss/gobridge/transports/httpsse => ../transports/httpsse
)
