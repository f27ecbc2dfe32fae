// Package prom is a telemetry.Meter backed by the Prometheus client
// library. It lives apart from package telemetry so that only the binaries
// that export Prometheus metrics depend on the client library; plugins and
// libraries keep to the dependency-free telemetry port.
package prom

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// DefaultLatencyBuckets are the histogram buckets, in seconds, used when a
// Desc gives none: from half a millisecond, where an in-process send sits,
// to a minute, past any sensible send timeout.
var DefaultLatencyBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

// Meter is a telemetry.Meter backed by a prometheus.Registry. Each family is
// registered on first use; later requests for the same family and label
// values return the same child, so instruments share state.
//
// A request that contradicts an earlier one (another kind, other label
// names, a wrong number of label values) or that the registry refuses
// gets an instrument that discards its values, and the problem is kept for
// Err: the telemetry.Meter interface has no error, and a metric mistake must not
// stop the message path.
type Meter struct {
	reg *prometheus.Registry

	mu       sync.Mutex
	families map[string]*family
	problems []error
}

// family is one registered metric family.
type family struct {
	kind   string // "counter", "gauge" or "histogram"
	labels []string
	cv     *prometheus.CounterVec
	gv     *prometheus.GaugeVec
	hv     *prometheus.HistogramVec
}

// New returns a meter that registers its families in reg. A nil
// reg gets a fresh registry that also carries the Go runtime and process
// collectors.
func New(reg *prometheus.Registry) *Meter {
	if reg == nil {
		reg = prometheus.NewRegistry()
		reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	return &Meter{reg: reg, families: make(map[string]*family)}
}

// Registry returns the registry the meter registers in.
func (p *Meter) Registry() *prometheus.Registry { return p.reg }

// Handler serves the registry in the Prometheus text exposition format,
// or in OpenMetrics, which carries the latency histograms' exemplars, to
// a scraper that asks for it (Accept: application/openmetrics-text).
func (p *Meter) Handler() http.Handler {
	return promhttp.HandlerFor(p.reg, promhttp.HandlerOpts{EnableOpenMetrics: true})
}

// Err returns every problem met while creating instruments, or nil.
func (p *Meter) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return errors.Join(p.problems...)
}

// Counter implements telemetry.Meter. Negative additions are ignored, since a
// Prometheus counter only goes up.
func (p *Meter) Counter(d telemetry.Desc, lv ...string) telemetry.Counter {
	f := p.family(d, "counter")
	if f == nil {
		return discard{}
	}
	c, err := f.cv.GetMetricWithLabelValues(lv...)
	if err != nil {
		p.problem(d, err)
		return discard{}
	}
	return promCounter{c}
}

// Gauge implements telemetry.Meter.
func (p *Meter) Gauge(d telemetry.Desc, lv ...string) telemetry.Gauge {
	f := p.family(d, "gauge")
	if f == nil {
		return discard{}
	}
	g, err := f.gv.GetMetricWithLabelValues(lv...)
	if err != nil {
		p.problem(d, err)
		return discard{}
	}
	return g
}

// Histogram implements telemetry.Meter.
func (p *Meter) Histogram(d telemetry.Desc, lv ...string) telemetry.Histogram {
	f := p.family(d, "histogram")
	if f == nil {
		return discard{}
	}
	h, err := f.hv.GetMetricWithLabelValues(lv...)
	if err != nil {
		p.problem(d, err)
		return discard{}
	}
	if eo, ok := h.(prometheus.ExemplarObserver); ok {
		return promHistogram{Observer: h, eo: eo}
	}
	return h
}

// promHistogram is a histogram that keeps exemplars: the trace_id of a
// sampled observation, shown in the OpenMetrics exposition.
type promHistogram struct {
	prometheus.Observer
	eo prometheus.ExemplarObserver
}

// ObserveWithTrace implements telemetry.ExemplarHistogram.
func (h promHistogram) ObserveWithTrace(v float64, traceID string) {
	h.eo.ObserveWithExemplar(v, prometheus.Labels{"trace_id": traceID})
}

// family returns d's family, registering it on first use, or nil after
// recording why it cannot be used.
func (p *Meter) family(d telemetry.Desc, kind string) *family {
	p.mu.Lock()
	defer p.mu.Unlock()
	if f, ok := p.families[d.Name]; ok {
		if f.kind != kind || !slices.Equal(f.labels, d.Labels) {
			p.problems = append(p.problems, fmt.Errorf("metric %s: asked for a %s with labels %v, but it is a %s with labels %v",
				d.Name, kind, d.Labels, f.kind, f.labels))
			return nil
		}
		return f
	}
	f := &family{kind: kind, labels: slices.Clone(d.Labels)}
	var c prometheus.Collector
	switch kind {
	case "counter":
		f.cv = prometheus.NewCounterVec(prometheus.CounterOpts{Name: d.Name, Help: d.Help}, f.labels)
		c = f.cv
	case "gauge":
		f.gv = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: d.Name, Help: d.Help}, f.labels)
		c = f.gv
	default:
		b := d.Buckets
		if b == nil {
			b = DefaultLatencyBuckets
		}
		f.hv = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: d.Name, Help: d.Help, Buckets: b}, f.labels)
		c = f.hv
	}
	if err := p.register(c); err != nil {
		p.problems = append(p.problems, fmt.Errorf("metric %s: %w", d.Name, err))
		return nil
	}
	p.families[d.Name] = f
	return f
}

// register registers c, turning a panic of the client library (an invalid
// name, for example) into an error.
func (p *Meter) register(c prometheus.Collector) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return p.reg.Register(c)
}

func (p *Meter) problem(d telemetry.Desc, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.problems = append(p.problems, fmt.Errorf("metric %s: %w", d.Name, err))
}

// promCounter drops negative additions, which the client library would
// turn into a panic.
type promCounter struct{ c prometheus.Counter }

func (c promCounter) Add(v float64) {
	if v > 0 {
		c.c.Add(v)
	}
}

// discard is the instrument handed out for a request the meter refused.
type discard struct{}

func (discard) Add(float64)     {}
func (discard) Set(float64)     {}
func (discard) Observe(float64) {}
