package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// defaultStoreEvery is how long the live view keeps the figures it reads
// from the stores (DLQ depths, deep health) when nothing says they
// changed. Each such read is a query, and on DynamoDB a billed one.
const defaultStoreEvery = 30 * time.Second

// storeReadTimeout bounds one refresh of the store-backed figures.
const storeReadTimeout = 10 * time.Second

// liveHub builds the snapshots of the event streams once for all of
// them. Cheap figures (route states, readiness, the metrics) are read at
// most once per tick whatever the number of open streams; the figures
// that cost store queries are read again only when the bridge
// dead-lettered a message, an operator changed the DLQ, a route or the
// readiness changed (a session that lost its broker shows there), and
// otherwise every storeEvery.
type liveHub struct {
	mu      sync.Mutex
	at      time.Time // when events were built
	events  []sseEvent
	smp     sampler
	storeAt time.Time // when dlq and deep were read
	dlq     liveDLQ
	deep    deepHealthBody
	dead    float64  // dead-lettered messages counted when dlq was read
	state   []string // stateOf the routes and readiness when dlq was read
	dirty   bool     // the DLQ changed through the admin API
}

// touch marks the store-backed figures stale.
func (h *liveHub) touch() {
	h.mu.Lock()
	h.dirty = true
	h.mu.Unlock()
}

// dlqChanged runs next and then marks the live figures stale, so that the
// consoles see a delete, redrive or purge at the next tick.
func (s *Server) dlqChanged(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		defer s.live.touch()
		next(w, r)
	}
}

// snapshot returns the three events in their fixed order, shared by
// every stream. The store reads run on a context of their own: a stream
// whose client left must not leave a failed read in the shared result.
func (s *Server) snapshot(ctx context.Context) []sseEvent {
	h := &s.live
	h.mu.Lock()
	defer h.mu.Unlock()
	now := time.Now()
	if h.events != nil && now.Sub(h.at) < s.eventTick/2 {
		return h.events
	}
	rs := s.b.Routes(ctx)
	counters := s.routeCounters(ctx)
	rd := s.b.Readiness(ctx)
	state := stateOf(rs, rd)
	dead := deadLettered(counters)
	if h.events == nil || h.dirty || dead != h.dead || !slices.Equal(state, h.state) ||
		now.Sub(h.storeAt) >= s.storeEvery {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeReadTimeout)
		h.dlq = s.dlqSnapshot(sctx, rs)
		h.deep = deepBody(s.b.DeepHealth(sctx))
		cancel()
		h.storeAt, h.dead, h.state, h.dirty = now, dead, state, false
	}
	routes := routesSnapshot(&h.smp, now, rs, counters, h.dlq)
	health := liveHealth{
		Ready: readyBody{Level: effectiveLevel(rd), Requested: LevelFull, Role: rd.Role, Detail: rd.Detail},
		Deep:  h.deep,
	}
	health.Ready.Ready = health.Ready.Level == LevelFull
	out := make([]sseEvent, 0, 3)
	for _, ev := range []struct {
		name string
		v    any
	}{{eventRoutes, routes}, {eventDLQ, h.dlq}, {eventHealth, health}} {
		b, err := json.Marshal(ev.v)
		if err != nil {
			continue
		}
		out = append(out, sseEvent{ev.name, b})
	}
	h.at, h.events = now, out
	return out
}

// stateOf lists what, when it changes, makes the deep health worth
// reading again: each route's ID, state and last error, and the readiness.
func stateOf(rs []RouteStatus, rd Readiness) []string {
	out := make([]string, 0, len(rs)+1)
	for _, rt := range rs {
		out = append(out, rt.ID+"\x00"+rt.State+"\x00"+rt.Role+"\x00"+rt.LastError)
	}
	return append(out, rd.Level+"\x00"+rd.Role+"\x00"+rd.Detail)
}

// deadLettered sums the dead-lettered messages of every route.
func deadLettered(counters map[string]*routeCounters) float64 {
	n := 0.0
	for _, c := range counters {
		n += c.deadLettered
	}
	return n
}

func (s *Server) dlqSnapshot(ctx context.Context, rs []RouteStatus) liveDLQ {
	out := liveDLQ{ByRoute: map[string]int{}}
	st := s.b.DLQ()
	if st == nil {
		return out
	}
	out.Configured = true
	if n, err := st.Count(ctx, ports.DLQFilter{}); err == nil {
		out.Depth = n
	}
	for _, rt := range rs {
		if n, err := st.Count(ctx, ports.DLQFilter{RouteID: rt.ID}); err == nil {
			out.ByRoute[rt.ID] = n
		}
	}
	return out
}

func routesSnapshot(smp *sampler, now time.Time, rs []RouteStatus, counters map[string]*routeCounters, dlq liveDLQ) liveRoutes {
	secs := 0.0
	if !smp.at.IsZero() {
		secs = now.Sub(smp.at).Seconds()
	}
	out := liveRoutes{Routes: []liveRoute{}}
	for _, rt := range rs {
		lr := liveRoute{ID: rt.ID, State: rt.State, Role: rt.Role, LastError: rt.LastError, InFlight: rt.InFlight}
		if c := counters[rt.ID]; c != nil {
			lr.InFlight = max(lr.InFlight, int(c.inFlight))
			if c.hasOutbox {
				d := int(c.outbox)
				lr.OutboxDepth = &d
			}
			if p := smp.prev[rt.ID]; p != nil {
				lr.ReceivedPerSec = rate(p.received, c.received, secs)
				lr.SentPerSec = rate(p.sent, c.sent, secs)
			}
		}
		if dlq.Configured {
			d := dlq.ByRoute[rt.ID]
			lr.DLQDepth = &d
		}
		out.Routes = append(out.Routes, lr)
	}
	smp.at, smp.prev = now, counters
	return out
}
