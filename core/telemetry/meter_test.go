package telemetry

import (
	"context"
	"errors"
	"math"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var (
	_ Meter = Noop()
	_ Meter = (*Memory)(nil)
)

var (
	msgsDesc  = Desc{Name: "gobridge_messages_total", Help: "messages", Labels: []string{"route", "outcome"}}
	depthDesc = Desc{Name: "gobridge_outbox_depth", Help: "depth", Labels: []string{"route"}}
	latDesc   = Desc{Name: "gobridge_send_seconds", Help: "latency", Labels: []string{"route"}, Buckets: []float64{0.1, 1}}
)

func TestNoopAcceptsCalls(t *testing.T) {
	m := Noop()
	for _, lv := range [][]string{nil, {"r1"}, {"r1", "ok"}, {"", "", ""}} {
		m.Counter(msgsDesc, lv...).Add(1)
		g := m.Gauge(depthDesc, lv...)
		g.Set(-3)
		g.Add(math.Inf(1))
		m.Histogram(latDesc, lv...).Observe(math.NaN())
	}
	m.Counter(Desc{}).Add(0)

}

func TestNoopTracerDoesNothing(t *testing.T) {
	type ctxKey struct{}
	ctx := context.WithValue(context.Background(), ctxKey{}, "v")
	tr := NoopTracer()
	if !IsNoopTracer(tr) {
		t.Error("IsNoopTracer(NoopTracer()) = false")
	}
	for _, o := range []StartOptions{{}, {Kind: KindConsumer, Attrs: []Attr{String("k", "v"), Int("n", 1)}, Links: []context.Context{ctx}, NewRoot: true}} {
		got, span := tr.Start(ctx, "gobridge.receive", o)
		if got != ctx {
			t.Error("NoopTracer.Start returned a different context")
		}
		if span == nil {
			t.Fatal("NoopTracer.Start returned a nil span")
		}
		if span.Recording() {
			t.Error("a no-op span says it records")
		}
		span.SetAttributes(Int("attempt", 2))
		span.AddEvent("retry")
		span.End(nil)
		span.End(errors.New("failed"))
	}
	h := map[string]any{"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}
	if got := tr.Extract(ctx, h); got != ctx {
		t.Error("NoopTracer.Extract returned a different context")
	}
	tr.Inject(ctx, h)
	if diff := cmp.Diff(map[string]any{"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}, h); diff != "" {
		t.Errorf("NoopTracer.Inject changed the headers (-want +got):\n%s", diff)
	}
}

func TestMemoryRecords(t *testing.T) {
	type obs struct {
		Value float64
		Count int64
	}
	tests := []struct {
		name   string
		record func(m *Memory)
		query  []string // metric name followed by label values
		want   obs
	}{
		{"never created", func(*Memory) {}, []string{"gobridge_messages_total", "r1", "ok"}, obs{}},
		{"counter adds", func(m *Memory) {
			c := m.Counter(msgsDesc, "r1", "ok")
			c.Add(1)
			c.Add(2.5)
		}, []string{"gobridge_messages_total", "r1", "ok"}, obs{3.5, 2}},
		{"counter created but unused", func(m *Memory) { m.Counter(msgsDesc, "r1", "ok") },
			[]string{"gobridge_messages_total", "r1", "ok"}, obs{}},
		{"same labels share state", func(m *Memory) {
			m.Counter(msgsDesc, "r1", "ok").Add(1)
			m.Counter(msgsDesc, "r1", "ok").Add(1)
		}, []string{"gobridge_messages_total", "r1", "ok"}, obs{2, 2}},
		{"other label set separate", func(m *Memory) {
			m.Counter(msgsDesc, "r1", "ok").Add(1)
			m.Counter(msgsDesc, "r1", "failed").Add(5)
			m.Counter(msgsDesc, "r2", "ok").Add(7)
		}, []string{"gobridge_messages_total", "r1", "failed"}, obs{5, 1}},
		{"gauge set then add", func(m *Memory) {
			g := m.Gauge(depthDesc, "r1")
			g.Set(10)
			g.Add(-3)
			g.Set(4)
			g.Add(0.5)
		}, []string{"gobridge_outbox_depth", "r1"}, obs{4.5, 4}},
		{"gauge negative", func(m *Memory) { m.Gauge(depthDesc, "r1").Add(-2) },
			[]string{"gobridge_outbox_depth", "r1"}, obs{-2, 1}},
		{"histogram sum and count", func(m *Memory) {
			h := m.Histogram(latDesc, "r1")
			for _, v := range []float64{0.25, 0.5, 2} {
				h.Observe(v)
			}
		}, []string{"gobridge_send_seconds", "r1"}, obs{2.75, 3}},
		{"other family separate", func(m *Memory) {
			m.Counter(msgsDesc, "r1").Add(1)
			m.Gauge(depthDesc, "r1").Set(9)
		}, []string{"gobridge_messages_total", "r1"}, obs{1, 1}},
		{"comma in value does not collide", func(m *Memory) {
			m.Counter(msgsDesc, "a,b").Add(1)
			m.Counter(msgsDesc, "a", "b").Add(10)
		}, []string{"gobridge_messages_total", "a,b"}, obs{1, 1}},
		{"split values do not collide", func(m *Memory) {
			m.Counter(msgsDesc, "a,b").Add(1)
			m.Counter(msgsDesc, "a", "b").Add(10)
		}, []string{"gobridge_messages_total", "a", "b"}, obs{10, 1}},
		{"no labels differs from one empty label", func(m *Memory) {
			m.Counter(msgsDesc).Add(1)
			m.Counter(msgsDesc, "").Add(10)
		}, []string{"gobridge_messages_total"}, obs{1, 1}},
		{"braces and quotes in values", func(m *Memory) {
			m.Counter(msgsDesc, `x"}`, "{").Add(2)
			m.Counter(msgsDesc, `x`, `"},{`).Add(20)
		}, []string{"gobridge_messages_total", `x"}`, "{"}, obs{2, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := NewMemory()
			tt.record(m)
			got := obs{m.Value(tt.query[0], tt.query[1:]...), m.Count(tt.query[0], tt.query[1:]...)}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Value/Count (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMemoryConcurrentUpdates(t *testing.T) {
	m := NewMemory()
	const workers, perWorker = 8, 1000
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			route := []string{"even", "odd"}[w%2]
			for range perWorker {
				// Fetch the instrument every time so that creation races too.
				m.Counter(msgsDesc, route, "ok").Add(1)
				m.Gauge(depthDesc, route).Add(0.5)
				m.Histogram(latDesc, route).Observe(2)
				_ = m.Value("gobridge_messages_total", route, "ok")
			}
		})
	}
	wg.Wait()

	const perRoute = workers / 2 * perWorker
	type row struct {
		Name   string
		Labels []string
		Value  float64
		Count  int64
	}
	var got, want []row
	for _, route := range []string{"even", "odd"} {
		want = append(want,
			row{"gobridge_messages_total", []string{route, "ok"}, perRoute, perRoute},
			row{"gobridge_outbox_depth", []string{route}, perRoute * 0.5, perRoute},
			row{"gobridge_send_seconds", []string{route}, perRoute * 2, perRoute},
		)
	}
	for _, w := range want {
		got = append(got, row{w.Name, w.Labels, m.Value(w.Name, w.Labels...), m.Count(w.Name, w.Labels...)})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("totals after concurrent updates (-want +got):\n%s", diff)
	}
}

func TestMemoryConcurrentSetIsLastWriterValue(t *testing.T) {
	m := NewMemory()
	g := m.Gauge(depthDesc, "r")
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for range 100 {
				g.Set(float64(i))
			}
		})
	}
	wg.Wait()
	v := m.Value("gobridge_outbox_depth", "r")
	if v != 0 && v != 1 && v != 2 && v != 3 {
		t.Errorf("gauge value %v is not one of the values set", v)
	}
	if c := m.Count("gobridge_outbox_depth", "r"); c != 400 {
		t.Errorf("Count = %d, want 400", c)
	}
}

func TestNoopTracerDoesNotAllocate(t *testing.T) {
	tr := NoopTracer()
	ctx := context.Background()
	h := map[string]any{"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}
	o := StartOptions{Kind: KindProducer}
	allocs := testing.AllocsPerRun(1000, func() {
		c, sp := tr.Start(tr.Extract(ctx, h), "gobridge.send", o)
		if sp.Recording() {
			sp.SetAttributes(Int("gobridge.attempt", 1))
		}
		tr.Inject(c, h)
		sp.End(nil)
	})
	if allocs != 0 {
		t.Errorf("the no-op tracer allocates %v times per span", allocs)
	}
}
