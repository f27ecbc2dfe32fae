// Package telemetry is the port through which core and plugins emit
// metrics and trace spans. The distro plugs a Prometheus meter in; tests use
// the in-memory meter; libraries default to the no-op implementations.
//
// Instruments are bound to their label values once, when a component is
// built, so recording on the message path costs no allocation.
package telemetry

// Desc describes a metric family. Name should follow Prometheus naming
// (gobridge_..._total for counters). Labels lists the label names; every
// instrument of the family supplies one value per name.
type Desc struct {
	Name    string
	Help    string
	Labels  []string
	Buckets []float64 // histograms only; nil means the meter's default
}

// Meter creates instruments bound to label values. Asking twice for the
// same family and values returns instruments that share state.
type Meter interface {
	Counter(d Desc, labelValues ...string) Counter
	Gauge(d Desc, labelValues ...string) Gauge
	Histogram(d Desc, labelValues ...string) Histogram
}

// Counter only goes up.
type Counter interface{ Add(v float64) }

// Gauge goes up and down.
type Gauge interface {
	Set(v float64)
	Add(v float64)
}

// Histogram records observations such as latencies in seconds.
type Histogram interface{ Observe(v float64) }

// ExemplarHistogram is implemented by histograms that can keep the trace
// an observation belongs to as its exemplar, so that a latency bucket
// links to a trace that landed in it.
type ExemplarHistogram interface {
	Histogram
	ObserveWithTrace(v float64, traceID string)
}

// ObserveWithTrace records v in h, with traceID as its exemplar when h
// keeps exemplars and traceID is not empty.
func ObserveWithTrace(h Histogram, v float64, traceID string) {
	if traceID != "" {
		if eh, ok := h.(ExemplarHistogram); ok {
			eh.ObserveWithTrace(v, traceID)
			return
		}
	}
	h.Observe(v)
}

// Noop returns a meter whose instruments discard everything.
func Noop() Meter { return noopMeter{} }

// IsNoop reports whether m is the meter returned by Noop, so that callers
// can skip work, such as reading the clock, whose only use is a metric.
func IsNoop(m Meter) bool {
	_, ok := m.(noopMeter)
	return ok
}

type noopMeter struct{}

func (noopMeter) Counter(Desc, ...string) Counter     { return noopInst{} }
func (noopMeter) Gauge(Desc, ...string) Gauge         { return noopInst{} }
func (noopMeter) Histogram(Desc, ...string) Histogram { return noopInst{} }

type noopInst struct{}

func (noopInst) Add(float64)     {}
func (noopInst) Set(float64)     {}
func (noopInst) Observe(float64) {}
