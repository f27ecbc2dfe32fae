package otel

import (
	"fmt"
	"time"
)

// The exporters the plugin offers.
const (
	ExporterOTLPHTTP = "otlp_http"
	ExporterOTLPGRPC = "otlp_grpc"
	ExporterStdout   = "stdout"
)

// Defaults of Config.
const (
	DefaultExporter      = ExporterOTLPHTTP
	DefaultSamplingRatio = 1.0
	DefaultServiceName   = "gobridge"
	DefaultTimeout       = 10 * time.Second
	DefaultBatchTimeout  = 5 * time.Second
)

// Config is the settings block of telemetry.tracing for type otel.
type Config struct {
	// Exporter is otlp_http (default), otlp_grpc or stdout.
	Exporter string `yaml:"exporter" enum:"otlp_http,otlp_grpc,stdout"`
	// Endpoint is the collector: host:port, or a URL (http:// or
	// https://, with a path for otlp_http). Empty means the exporter's
	// default (localhost:4318 for otlp_http, localhost:4317 for otlp_grpc)
	// or the OTEL_EXPORTER_OTLP_* environment variables. Not used by
	// stdout.
	Endpoint string `yaml:"endpoint"`
	// Headers are sent with every export request, such as a vendor's API
	// key. They are secret: the admin API never shows them.
	Headers map[string]string `yaml:"headers" secret:"true"`
	// Insecure sends OTLP without TLS (plain HTTP, or gRPC without
	// transport security). An http:// endpoint URL implies it.
	Insecure bool `yaml:"insecure"`
	// SamplingRatio is the share of new traces recorded and exported, in
	// [0,1] (default 1: every trace). A message that arrives with a trace
	// context from a trusted upstream follows that upstream's decision.
	SamplingRatio *float64 `yaml:"sampling_ratio"`
	// ServiceName is the service.name resource attribute (gobridge).
	ServiceName string `yaml:"service_name"`
	// ResourceAttributes are added to the resource of every span, such as
	// deployment.environment.
	ResourceAttributes map[string]string `yaml:"resource_attributes"`
	// Timeout bounds one export request (10s).
	Timeout time.Duration `yaml:"timeout"`
	// BatchTimeout is the longest a span waits before it is exported (5s).
	BatchTimeout time.Duration `yaml:"batch_timeout"`
}

// WithDefaults fills the unset fields.
func (c Config) WithDefaults() Config {
	if c.Exporter == "" {
		c.Exporter = DefaultExporter
	}
	if c.SamplingRatio == nil {
		r := DefaultSamplingRatio
		c.SamplingRatio = &r
	}
	if c.ServiceName == "" {
		c.ServiceName = DefaultServiceName
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.BatchTimeout == 0 {
		c.BatchTimeout = DefaultBatchTimeout
	}
	return c
}

// Validate checks the settings after defaults.
func (c Config) Validate() error {
	switch c.Exporter {
	case ExporterOTLPHTTP, ExporterOTLPGRPC, ExporterStdout:
	default:
		return fmt.Errorf("exporter: %q is not one of otlp_http, otlp_grpc, stdout", c.Exporter)
	}
	if r := *c.SamplingRatio; r < 0 || r > 1 || r != r {
		return fmt.Errorf("sampling_ratio: %v is not within [0,1]", r)
	}
	if c.Timeout < 0 {
		return fmt.Errorf("timeout: %s is negative", c.Timeout)
	}
	if c.BatchTimeout < 0 {
		return fmt.Errorf("batch_timeout: %s is negative", c.BatchTimeout)
	}
	if _, ok := c.ResourceAttributes["service.name"]; ok {
		return fmt.Errorf("resource_attributes: set service.name with service_name")
	}
	if c.Exporter == ExporterStdout && (c.Endpoint != "" || len(c.Headers) > 0 || c.Insecure) {
		return fmt.Errorf("endpoint, headers and insecure apply to the OTLP exporters, not stdout")
	}
	return nil
}
