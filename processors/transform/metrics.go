package transform

import "github.com/gobridge-oss/gobridge/core/telemetry"

// Metric names. Every family has one label, processor, holding the
// processor's name.
const (
	// MetricTransformed counts messages whose payload was rewritten.
	MetricTransformed = "gobridge_transform_transformed_total"
	// MetricRejected counts messages refused with an error.
	MetricRejected = "gobridge_transform_rejected_total"
	// MetricSkipped counts mappings left out because their conversion
	// failed or their target was blocked, without failing the message.
	MetricSkipped = "gobridge_transform_mappings_skipped_total"
)

// metrics holds the processor's counters, bound to its name once.
type metrics struct {
	transformed telemetry.Counter
	rejected    telemetry.Counter
	skipped     telemetry.Counter
}

func newMetrics(m telemetry.Meter, name string) metrics {
	labels := []string{"processor"}
	c := func(n, help string) telemetry.Counter {
		return m.Counter(telemetry.Desc{Name: n, Help: help, Labels: labels}, name)
	}
	return metrics{
		transformed: c(MetricTransformed, "Messages whose payload the transform rewrote."),
		rejected:    c(MetricRejected, "Messages the transform refused."),
		skipped:     c(MetricSkipped, "Mappings skipped because their conversion failed or their target was blocked."),
	}
}
