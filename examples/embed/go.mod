module github.com/gobridge-oss/gobridge/examples/embed

go 1.26.0

require (
	github.com/gobridge-oss/gobridge/service v0.0.0
	github.com/gobridge-oss/gobridge/transports/httpsse v0.0.0
	github.com/google/go-cmp v0.7.0
)

require (
	github.com/go-viper/mapstructure/v2 v2.5.0 // indirect
	github.com/gobridge-oss/gobridge/core v0.0.0 // indirect
	github.com/knadh/koanf/maps v0.1.2 // indirect
	github.com/knadh/koanf/parsers/yaml v1.1.1 // indirect
	github.com/knadh/koanf/providers/env/v2 v2.0.2 // indirect
	github.com/knadh/koanf/providers/rawbytes v1.0.0 // indirect
	github.com/knadh/koanf/v2 v2.4.1 // indirect
	github.com/mitchellh/copystructure v1.2.0 // indirect
	github.com/mitchellh/reflectwalk v1.0.2 // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/prometheus/client_model v0.6.3 // indirect
	github.com/prometheus/common v0.72.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)

replace (
	github.com/gobridge-oss/gobridge/core => ../../core
	github.com/gobridge-oss/gobridge/service => ../../service
	github.com/gobridge-oss/gobridge/transports/httpsse => ../../transports/httpsse
)
