package filter

import "github.com/gobridge-oss/gobridge/core/telemetry"

// Metric names. Every family has one label, processor, holding the
// filter's name. Each evaluated message is counted once more in exactly one
// of passed, dropped, routed or rejected.
const (
	MetricEvaluated = "gobridge_filter_evaluated_total"
	MetricPassed    = "gobridge_filter_passed_total"
	MetricDropped   = "gobridge_filter_dropped_total"
	MetricRouted    = "gobridge_filter_routed_total"
	MetricRejected  = "gobridge_filter_rejected_total"
)

// metrics holds the filter's counters, bound to its name once.
type metrics struct {
	evaluated telemetry.Counter
	passed    telemetry.Counter
	dropped   telemetry.Counter
	routed    telemetry.Counter
	rejected  telemetry.Counter
}

func newMetrics(m telemetry.Meter, name string) metrics {
	labels := []string{"processor"}
	c := func(n, help string) telemetry.Counter {
		return m.Counter(telemetry.Desc{Name: n, Help: help, Labels: labels}, name)
	}
	return metrics{
		evaluated: c(MetricEvaluated, "Messages the filter evaluated."),
		passed:    c(MetricPassed, "Messages the filter let through unchanged."),
		dropped:   c(MetricDropped, "Messages the filter discarded on purpose."),
		routed:    c(MetricRouted, "Messages the filter steered to its route_to binding."),
		rejected:  c(MetricRejected, "Messages the filter refused because the payload exceeded its cap."),
	}
}
