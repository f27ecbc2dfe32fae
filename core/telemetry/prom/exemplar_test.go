package prom_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/gobridge-oss/gobridge/core/telemetry"
	"github.com/gobridge-oss/gobridge/core/telemetry/prom"
)

// scrape returns the meter's exposition as a scraper that accepts
// OpenMetrics (openMetrics) or only the text format receives it.
func scrape(t *testing.T, h http.Handler, openMetrics bool) string {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	if openMetrics {
		req.Header.Set("Accept", "application/openmetrics-text; version=1.0.0")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	body, _ := io.ReadAll(rec.Body)
	return string(body)
}

func TestHistogramExemplarsInOpenMetrics(t *testing.T) {
	m := prom.New(prometheus.NewRegistry())
	h := m.Histogram(telemetry.Desc{Name: "gobridge_route_handle_seconds", Help: "h", Labels: []string{"route"}, Buckets: []float64{0.1, 1}}, "r")
	if _, ok := h.(telemetry.ExemplarHistogram); !ok {
		t.Fatal("the Prometheus histogram takes no exemplars")
	}
	telemetry.ObserveWithTrace(h, 0.05, "0af7651916cd43dd8448eb211c80319c")
	telemetry.ObserveWithTrace(h, 0.5, "") // no trace: a plain observation
	om := scrape(t, m.Handler(), true)
	want := `gobridge_route_handle_seconds_bucket{route="r",le="0.1"} 1 # {trace_id="0af7651916cd43dd8448eb211c80319c"} 0.05`
	if !strings.Contains(om, want) {
		t.Errorf("OpenMetrics exposition lacks the exemplar %q:\n%s", want, om)
	}
	if text := scrape(t, m.Handler(), false); strings.Contains(text, "trace_id") || !strings.Contains(text, "gobridge_route_handle_seconds_count{route=\"r\"} 2") {
		t.Errorf("the text format changed:\n%s", text)
	}
}
