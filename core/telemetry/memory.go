package telemetry

import (
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Memory is a Meter that keeps values in memory so tests can read them.
// Histograms record the count and sum of observations.
type Memory struct {
	mu   sync.Mutex
	vals map[string]*memValue
}

// NewMemory returns an empty in-memory meter.
func NewMemory() *Memory { return &Memory{vals: make(map[string]*memValue)} }

// Counter implements Meter.
func (m *Memory) Counter(d Desc, lv ...string) Counter { return m.get(d.Name, lv) }

// Gauge implements Meter.
func (m *Memory) Gauge(d Desc, lv ...string) Gauge { return m.get(d.Name, lv) }

// Histogram implements Meter.
func (m *Memory) Histogram(d Desc, lv ...string) Histogram { return m.get(d.Name, lv) }

// Value returns the current value of a counter or gauge, or the sum of a
// histogram's observations; zero when the instrument was never created.
func (m *Memory) Value(name string, labelValues ...string) float64 {
	m.mu.Lock()
	v := m.vals[key(name, labelValues)]
	m.mu.Unlock()
	if v == nil {
		return 0
	}
	return math.Float64frombits(v.bits.Load())
}

// Count returns how many times an instrument was updated.
func (m *Memory) Count(name string, labelValues ...string) int64 {
	m.mu.Lock()
	v := m.vals[key(name, labelValues)]
	m.mu.Unlock()
	if v == nil {
		return 0
	}
	return v.n.Load()
}

func (m *Memory) get(name string, lv []string) *memValue {
	k := key(name, lv)
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.vals[k]
	if !ok {
		v = &memValue{}
		m.vals[k] = v
	}
	return v
}

// key quotes each label value so that distinct label sets never share a
// key: ("a,b") differs from ("a", "b"), and () from ("").
func key(name string, lv []string) string {
	var b strings.Builder
	b.WriteString(name)
	b.WriteByte('{')
	for i, v := range lv {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(v))
	}
	b.WriteByte('}')
	return b.String()
}

type memValue struct {
	bits atomic.Uint64
	n    atomic.Int64
}

func (v *memValue) Add(d float64) {
	v.n.Add(1)
	for {
		old := v.bits.Load()
		nv := math.Float64bits(math.Float64frombits(old) + d)
		if v.bits.CompareAndSwap(old, nv) {
			return
		}
	}
}

func (v *memValue) Set(x float64) {
	v.n.Add(1)
	v.bits.Store(math.Float64bits(x))
}

func (v *memValue) Observe(x float64) { v.Add(x) }
