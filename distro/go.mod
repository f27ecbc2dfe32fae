module github.com/gobridge-oss/gobridge/distro

go 1.26.0

require (
	github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus v1.11.0
	github.com/chromedp/chromedp v0.23.1
	github.com/gobridge-oss/gobridge/core v0.0.0
	github.com/gobridge-oss/gobridge/examples v0.0.0-00010101000000-000000000000
	github.com/gobridge-oss/gobridge/processors/circuitbreaker v0.0.0
	github.com/gobridge-oss/gobridge/processors/filter v0.0.0
	github.com/gobridge-oss/gobridge/processors/tenant v0.0.0
	github.com/gobridge-oss/gobridge/processors/transform v0.0.0
	github.com/gobridge-oss/gobridge/service v0.0.0
	github.com/gobridge-oss/gobridge/stores/dynamodb v0.0.0
	github.com/gobridge-oss/gobridge/stores/memory v0.0.0
	github.com/gobridge-oss/gobridge/stores/sqlite v0.0.0
	github.com/gobridge-oss/gobridge/telemetry/otel v0.0.0
	github.com/gobridge-oss/gobridge/transports/amqp091 v0.0.0-00010101000000-000000000000
	github.com/gobridge-oss/gobridge/transports/amqp10 v0.0.0
	github.com/gobridge-oss/gobridge/transports/httpsse v0.0.0
	github.com/gobridge-oss/gobridge/transports/mqtt v0.0.0-00010101000000-000000000000
	github.com/gobridge-oss/gobridge/transports/servicebus v0.0.0
	github.com/gobridge-oss/gobridge/transports/sqs v0.0.0
	github.com/google/go-cmp v0.7.0
	github.com/rabbitmq/amqp091-go v1.17.0
)

require (
	github.com/cenkalti/backoff/v5 v5.0.3 // indirect
	github.com/go-logr/logr v1.4.4 // indirect
	github.com/go-logr/stdr v1.2.2 // indirect
	github.com/grpc-ecosystem/grpc-gateway/v2 v2.30.0 // indirect
	go.opentelemetry.io/auto/sdk v1.2.1 // indirect
	go.opentelemetry.io/otel v1.47.0
	go.opentelemetry.io/otel/exporters/otlp/otlptrace v1.47.0 // indirect
	go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc v1.47.0 // indirect
	go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp v1.47.0 // indirect
	go.opentelemetry.io/otel/exporters/stdout/stdouttrace v1.47.0 // indirect
	go.opentelemetry.io/otel/log v1.47.0 // indirect
	go.opentelemetry.io/otel/metric v1.47.0 // indirect
	go.opentelemetry.io/otel/sdk v1.47.0
	go.opentelemetry.io/otel/trace v1.47.0
	go.opentelemetry.io/proto/otlp v1.11.0 // indirect
	google.golang.org/genproto/googleapis/api v0.0.0-20260928230214-8a89bd6388cc // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260928230214-8a89bd6388cc // indirect
	google.golang.org/grpc v1.83.2 // indirect
)

require (
	github.com/Azure/azure-sdk-for-go/sdk/azcore v1.23.0 // indirect
	github.com/Azure/azure-sdk-for-go/sdk/azidentity v1.14.0 // indirect
	github.com/Azure/azure-sdk-for-go/sdk/internal v1.12.0 // indirect
	github.com/Azure/go-amqp v1.7.0 // indirect
	github.com/AzureAD/microsoft-authentication-library-for-go v1.8.0 // indirect
	github.com/aws/aws-sdk-go-v2 v1.48.0 // indirect
	github.com/aws/aws-sdk-go-v2/config v1.33.19 // indirect
	github.com/aws/aws-sdk-go-v2/credentials v1.21.1 // indirect
	github.com/aws/aws-sdk-go-v2/feature/ec2/imds v1.20.9 // indirect
	github.com/aws/aws-sdk-go-v2/internal/configsources v1.5.12 // indirect
	github.com/aws/aws-sdk-go-v2/internal/endpoints/v2 v2.8.12 // indirect
	github.com/aws/aws-sdk-go-v2/internal/v4a v1.5.12 // indirect
	github.com/aws/aws-sdk-go-v2/service/dynamodb v1.74.1 // indirect
	github.com/aws/aws-sdk-go-v2/service/internal/accept-encoding v1.13.25 // indirect
	github.com/aws/aws-sdk-go-v2/service/internal/endpoint-discovery v1.13.12 // indirect
	github.com/aws/aws-sdk-go-v2/service/internal/presigned-url v1.14.12 // indirect
	github.com/aws/aws-sdk-go-v2/service/signin v1.13.1 // indirect
	github.com/aws/aws-sdk-go-v2/service/sqs v1.53.0 // indirect
	github.com/aws/aws-sdk-go-v2/service/sso v1.39.5 // indirect
	github.com/aws/aws-sdk-go-v2/service/ssooidc v1.44.5 // indirect
	github.com/aws/aws-sdk-go-v2/service/sts v1.52.0 // indirect
	github.com/aws/smithy-go v1.28.9 // indirect
	github.com/beorn7/perks v1.0.1 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/chromedp/cdproto v0.160.1 // indirect
	github.com/eclipse/paho.golang v0.23.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/go-viper/mapstructure/v2 v2.5.0 // indirect
	github.com/golang-jwt/jwt/v5 v5.3.1 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/gorilla/websocket v1.5.3 // indirect
	github.com/knadh/koanf/maps v0.1.2 // indirect
	github.com/knadh/koanf/parsers/yaml v1.1.1 // indirect
	github.com/knadh/koanf/providers/env/v2 v2.0.2 // indirect
	github.com/knadh/koanf/providers/rawbytes v1.0.0 // indirect
	github.com/knadh/koanf/v2 v2.4.1 // indirect
	github.com/kylelemons/godebug v1.1.0 // indirect
	github.com/mattn/go-sqlite3 v1.14.53 // indirect
	github.com/mitchellh/copystructure v1.2.0 // indirect
	github.com/mitchellh/reflectwalk v1.0.2 // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/pkg/browser v0.0.0-20240102092130-5ac0b6a4141c // indirect
	github.com/prometheus/client_golang v1.25.0 // indirect
	github.com/prometheus/client_model v0.6.3 // indirect
	github.com/prometheus/common v0.72.0 // indirect
	github.com/prometheus/procfs v0.22.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/crypto v0.57.0 // indirect
	golang.org/x/net v0.59.0 // indirect
	golang.org/x/sync v0.23.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/text v0.42.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)

replace (
	github.com/gobridge-oss/gobridge/core => ../core
	github.com/gobridge-oss/gobridge/examples => ../examples
	github.com/gobridge-oss/gobridge/processors/circuitbreaker => ../processors/circuitbreaker
	github.com/gobridge-oss/gobridge/processors/filter => ../processors/filter
	github.com/gobridge-oss/gobridge/processors/tenant => ../processors/tenant
	github.com/gobridge-oss/gobridge/processors/transform => ../processors/transform
	github.com/gobridge-oss/gobridge/service => ../service
	github.com/gobridge-oss/gobridge/stores/dynamodb => ../stores/dynamodb
	github.com/gobridge-oss/gobridge/stores/memory => ../stores/memory
	github.com/gobridge-oss/gobridge/stores/sqlite => ../stores/sqlite
	github.com/gobridge-oss/gobridge/telemetry/otel => ../telemetry/otel
	github.com/gobridge-oss/gobridge/transports/amqp091 => ../transports/amqp091
	github.com/gobridge-oss/gobridge/transports/amqp10 => ../transports/amqp10
	github.com/gobridge-oss/gobridge/transports/httpsse => ../transports/httpsse
	github.com/gobridge-oss/gobridge/transports/mqtt => ../transports/mqtt
	github.com/gobridge-oss/gobridge/transports/servicebus => ../transports/servicebus
	github.com/gobridge-oss/gobridge/transports/sqs => ../transports/sqs
)
