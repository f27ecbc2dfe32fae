package httpapi

import (
	"bytes"
	"context"
	"math"
	"net/http"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Metric families the live route view reads from the backend's exposition.
const (
	metricReceived = "gobridge_route_messages_received_total"
	metricSent     = "gobridge_route_messages_sent_total"
	metricInFlight = "gobridge_route_in_flight"
	metricOutbox   = "gobridge_outbox_depth"
	metricDead     = "gobridge_route_messages_dead_lettered_total"
)

// routeCounters are one route's figures from the metrics, summed over
// its bindings.
type routeCounters struct {
	received, sent, inFlight, outbox float64
	deadLettered                     float64
	hasOutbox                        bool
}

// routeCounters reads the backend's Prometheus exposition in-process and
// returns the figures of each route by ID; nil when metrics are off or
// unreadable, in which case the live view shows no rates.
func (s *Server) routeCounters(ctx context.Context) map[string]*routeCounters {
	h := s.b.Metrics()
	if h == nil {
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "/metrics", nil)
	if err != nil {
		return nil
	}
	req.Header.Set("Accept", "text/plain; version=0.0.4")
	rec := &bufferWriter{header: http.Header{}, status: http.StatusOK}
	h.ServeHTTP(rec, req)
	if rec.status != http.StatusOK {
		return nil
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(&rec.body)
	if err != nil && len(fams) == 0 {
		return nil
	}
	out := map[string]*routeCounters{}
	add := func(name string, set func(c *routeCounters, v float64)) {
		f := fams[name]
		if f == nil {
			return
		}
		for _, m := range f.GetMetric() {
			route := labelValue(m, "route")
			if route == "" {
				continue
			}
			c := out[route]
			if c == nil {
				c = &routeCounters{}
				out[route] = c
			}
			set(c, sampleValue(m))
		}
	}
	add(metricReceived, func(c *routeCounters, v float64) { c.received += v })
	add(metricSent, func(c *routeCounters, v float64) { c.sent += v })
	add(metricInFlight, func(c *routeCounters, v float64) { c.inFlight += v })
	add(metricOutbox, func(c *routeCounters, v float64) { c.outbox += v; c.hasOutbox = true })
	add(metricDead, func(c *routeCounters, v float64) { c.deadLettered += v })
	return out
}

func labelValue(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

func sampleValue(m *dto.Metric) float64 {
	switch {
	case m.Counter != nil:
		return m.GetCounter().GetValue()
	case m.Gauge != nil:
		return m.GetGauge().GetValue()
	case m.Untyped != nil:
		return m.GetUntyped().GetValue()
	}
	return 0
}

// rate is the per-second increase from before to now over secs, rounded
// to two decimals so that an idle route reads a steady 0.
func rate(before, now, secs float64) float64 {
	if secs <= 0 || now < before {
		return 0
	}
	return math.Round((now-before)/secs*100) / 100
}

// bufferWriter is an in-memory http.ResponseWriter for reading the
// metrics handler without a network round trip.
type bufferWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferWriter) Header() http.Header         { return b.header }
func (b *bufferWriter) Write(p []byte) (int, error) { return b.body.Write(p) }
func (b *bufferWriter) WriteHeader(status int)      { b.status = status }
