package cli

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/gobridge-oss/gobridge/core/config"
	"github.com/gobridge-oss/gobridge/core/telemetry"
	"github.com/gobridge-oss/gobridge/core/telemetry/prom"
)

// newMetrics returns the meter the bridge records into and the handler
// that exposes it in the Prometheus text format, together with the Go
// runtime and process collectors; metrics: false in the telemetry block
// turns both off.
func newMetrics(t config.Telemetry) (telemetry.Meter, http.Handler) {
	if t.Metrics != nil && !*t.Metrics {
		return telemetry.Noop(), nil
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	p := prom.New(reg)
	return p, p.Handler()
}
