package circuitbreaker

import (
	"sync"

	"github.com/gobridge-oss/gobridge/core/telemetry"
	"github.com/gobridge-oss/gobridge/processors/circuitbreaker/breaker"
)

// OtherKey is the metric label value shared by every key beyond the
// cardinality limit.
const OtherKey = "other"

// The metric families the processor records. They are functions rather
// than package variables so that no caller can alter them.
func descStateChanges() telemetry.Desc {
	return telemetry.Desc{
		Name:   "gobridge_circuitbreaker_state_changes_total",
		Help:   "Breaker state transitions.",
		Labels: []string{"processor", "key", "from", "to"},
	}
}

func descTrips() telemetry.Desc {
	return telemetry.Desc{
		Name:   "gobridge_circuitbreaker_trips_total",
		Help:   "Transitions into the open state.",
		Labels: []string{"processor", "key"},
	}
}

func descRejections() telemetry.Desc {
	return telemetry.Desc{
		Name:   "gobridge_circuitbreaker_rejections_total",
		Help:   "Messages refused because their breaker was open or out of probe slots.",
		Labels: []string{"processor", "key"},
	}
}

func descEvictions() telemetry.Desc {
	return telemetry.Desc{
		Name:   "gobridge_circuitbreaker_evictions_total",
		Help:   "Breakers dropped from the cache, by the state they were in.",
		Labels: []string{"processor", "state"},
	}
}

// numTransitions is how many distinct transitions a breaker can make.
const numTransitions = 4

// transitionAt returns the i-th possible transition; ok is false past the
// last one.
func transitionAt(i int) (from, to breaker.State, ok bool) {
	switch i {
	case 0:
		return breaker.Closed, breaker.Open, true
	case 1:
		return breaker.Open, breaker.HalfOpen, true
	case 2:
		return breaker.HalfOpen, breaker.Closed, true
	case 3:
		return breaker.HalfOpen, breaker.Open, true
	}
	return 0, 0, false
}

// keyInstruments are the counters of one key label, bound once.
type keyInstruments struct {
	changes    [numTransitions]telemetry.Counter
	trips      telemetry.Counter
	rejections telemetry.Counter
}

func (k *keyInstruments) changed(from, to breaker.State) {
	for i := range numTransitions {
		if f, t, _ := transitionAt(i); f == from && t == to {
			k.changes[i].Add(1)
		}
	}
	if to == breaker.Open {
		k.trips.Add(1)
	}
}

// instruments hands out keyInstruments per bounded key label.
type instruments struct {
	meter     telemetry.Meter
	processor string
	limit     int

	mu     sync.Mutex
	byKey  map[string]*keyInstruments // at most limit entries, plus OtherKey
	other  *keyInstruments
	evicts [3]telemetry.Counter // by breaker.State
}

func newInstruments(m telemetry.Meter, processor string, limit int) *instruments {
	return &instruments{
		meter:     m,
		processor: processor,
		limit:     limit,
		byKey:     make(map[string]*keyInstruments),
		evicts: [3]telemetry.Counter{
			breaker.Closed:   m.Counter(descEvictions(), processor, breaker.Closed.String()),
			breaker.Open:     m.Counter(descEvictions(), processor, breaker.Open.String()),
			breaker.HalfOpen: m.Counter(descEvictions(), processor, breaker.HalfOpen.String()),
		},
	}
}

// evicted counts the eviction of a breaker that was in state s.
func (in *instruments) evicted(s breaker.State) {
	if int(s) < len(in.evicts) {
		in.evicts[s].Add(1)
	}
}

// forKey returns the instruments of key's label: key itself while fewer
// than limit keys have been seen, OtherKey afterwards. A key keeps its
// label for the processor's lifetime, even after its breaker is evicted.
func (in *instruments) forKey(key string) *keyInstruments {
	in.mu.Lock()
	defer in.mu.Unlock()
	if k, ok := in.byKey[key]; ok {
		return k
	}
	if len(in.byKey) < in.limit && key != OtherKey {
		k := in.bind(key)
		in.byKey[key] = k
		return k
	}
	if in.other == nil {
		in.other = in.bind(OtherKey)
	}
	return in.other
}

func (in *instruments) bind(label string) *keyInstruments {
	k := &keyInstruments{
		trips:      in.meter.Counter(descTrips(), in.processor, label),
		rejections: in.meter.Counter(descRejections(), in.processor, label),
	}
	for i := range numTransitions {
		from, to, _ := transitionAt(i)
		k.changes[i] = in.meter.Counter(descStateChanges(), in.processor, label, from.String(), to.String())
	}
	return k
}
