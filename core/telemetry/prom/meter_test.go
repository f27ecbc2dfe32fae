package prom

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/gobridge-oss/gobridge/core/telemetry"
)

var _ telemetry.Meter = (*Meter)(nil)

var (
	msgsDesc  = telemetry.Desc{Name: "gobridge_messages_total", Help: "messages", Labels: []string{"route", "outcome"}}
	depthDesc = telemetry.Desc{Name: "gobridge_outbox_depth", Help: "depth", Labels: []string{"route"}}
	latDesc   = telemetry.Desc{Name: "gobridge_send_seconds", Help: "latency", Labels: []string{"route"}, Buckets: []float64{0.1, 1}}
)

// sample is one gathered series reduced for comparison: its label values
// and its value (the sample count and sum for a histogram).
type sample struct {
	Labels string
	Value  float64
	Count  uint64
}

// gather returns the series of one family.
func gather(t *testing.T, reg *prometheus.Registry, name string) []sample {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var out []sample
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			var lv []string
			for _, l := range m.GetLabel() {
				lv = append(lv, l.GetName()+"="+l.GetValue())
			}
			s := sample{Labels: strings.Join(lv, ",")}
			switch {
			case m.Counter != nil:
				s.Value = m.GetCounter().GetValue()
			case m.Gauge != nil:
				s.Value = m.GetGauge().GetValue()
			case m.Histogram != nil:
				s.Value, s.Count = m.GetHistogram().GetSampleSum(), m.GetHistogram().GetSampleCount()
			}
			out = append(out, s)
		}
	}
	return out
}

func TestMeterRecords(t *testing.T) {
	reg := prometheus.NewRegistry()
	p := New(reg)
	a := p.Counter(msgsDesc, "r1", "ok")
	b := p.Counter(msgsDesc, "r1", "ok") // same series: shared state
	p.Counter(msgsDesc, "r2", "failed").Add(1)
	a.Add(1)
	b.Add(2)
	a.Add(-5) // ignored: counters only go up
	g := p.Gauge(depthDesc, "r1")
	g.Set(10)
	p.Gauge(depthDesc, "r1").Add(-3)
	h := p.Histogram(latDesc, "r1")
	h.Observe(0.5)
	h.Observe(2)

	got := map[string][]sample{
		msgsDesc.Name:  gather(t, reg, msgsDesc.Name),
		depthDesc.Name: gather(t, reg, depthDesc.Name),
		latDesc.Name:   gather(t, reg, latDesc.Name),
	}
	want := map[string][]sample{
		msgsDesc.Name:  {{Labels: "outcome=failed,route=r2", Value: 1}, {Labels: "outcome=ok,route=r1", Value: 3}},
		depthDesc.Name: {{Labels: "route=r1", Value: 7}},
		latDesc.Name:   {{Labels: "route=r1", Value: 2.5, Count: 2}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	if err := p.Err(); err != nil {
		t.Errorf("Err() = %v", err)
	}
}

func TestMeterDefaultBuckets(t *testing.T) {
	reg := prometheus.NewRegistry()
	p := New(reg)
	p.Histogram(telemetry.Desc{Name: "gobridge_x_seconds", Help: "x"}).Observe(0.003)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var bounds []float64
	for _, b := range mfs[0].GetMetric()[0].GetHistogram().GetBucket() {
		bounds = append(bounds, b.GetUpperBound())
	}
	if diff := cmp.Diff(DefaultLatencyBuckets, bounds); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

func TestMeterConflictsAreReportedNotFatal(t *testing.T) {
	tests := []struct {
		name   string
		second func(p *Meter)
		want   string
	}{
		{"other kind", func(p *Meter) { p.Gauge(msgsDesc, "r", "ok").Set(1) }, "asked for a gauge"},
		{"other labels", func(p *Meter) {
			p.Counter(telemetry.Desc{Name: msgsDesc.Name, Help: "h", Labels: []string{"route"}}, "r").Add(1)
		}, "with labels [route]"},
		{"too few values", func(p *Meter) { p.Counter(msgsDesc, "r").Add(1) }, "inconsistent label cardinality"},
		{"empty name", func(p *Meter) { p.Counter(telemetry.Desc{Help: "h"}).Add(1) }, "metric :"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := prometheus.NewRegistry()
			p := New(reg)
			p.Counter(msgsDesc, "r", "ok").Add(1)
			tt.second(p)
			if err := p.Err(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Err() = %v, want it to mention %q", err, tt.want)
			}
			if diff := cmp.Diff([]sample{{Labels: "outcome=ok,route=r", Value: 1}}, gather(t, reg, msgsDesc.Name)); diff != "" {
				t.Errorf("first family changed (-want +got)\n%s", diff)
			}
		})
	}
}

func TestMeterHandler(t *testing.T) {
	p := New(nil)
	p.Counter(msgsDesc, "r1", "ok").Add(4)
	srv := httptest.NewServer(p.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, want := range []string{
		"# TYPE gobridge_messages_total counter",
		`gobridge_messages_total{outcome="ok",route="r1"} 4`,
		"go_goroutines", // the default registry carries the Go collector
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("exposition lacks %q", want)
		}
	}
}

func TestMeterConcurrentUse(t *testing.T) {
	reg := prometheus.NewRegistry()
	p := New(reg)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				p.Counter(msgsDesc, "r", "ok").Add(1)
				p.Gauge(depthDesc, "r").Add(1)
				p.Histogram(latDesc, "r").Observe(0.1)
			}
		})
	}
	wg.Wait()
	got := []sample{gather(t, reg, msgsDesc.Name)[0], gather(t, reg, depthDesc.Name)[0]}
	want := []sample{{Labels: "outcome=ok,route=r", Value: 800}, {Labels: "route=r", Value: 800}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

func TestMeterInstrumentsDoNotAllocate(t *testing.T) {
	p := New(prometheus.NewRegistry())
	c := p.Counter(msgsDesc, "r", "ok")
	g := p.Gauge(depthDesc, "r")
	h := p.Histogram(latDesc, "r")
	allocs := testing.AllocsPerRun(1000, func() {
		c.Add(1)
		c.Add(0.5)
		g.Set(3)
		g.Add(-1)
		h.Observe(0.02)
	})
	if allocs != 0 {
		t.Errorf("recording allocated %v times per run", allocs)
	}
}
