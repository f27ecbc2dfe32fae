package httpapi

import (
	"bytes"
	"net/http"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// Defaults of the live event stream.
const (
	// DefaultMaxEventStreams bounds the event streams open at once when
	// Config.MaxEventStreams is 0.
	DefaultMaxEventStreams = 8
	defaultEventTick       = 2 * time.Second
	defaultHeartbeat       = 15 * time.Second
)

// Event names of the admin event stream.
const (
	eventRoutes = "routes"
	eventDLQ    = "dlq"
	eventHealth = "health"
)

// liveRoute is one route in a "routes" event.
type liveRoute struct {
	ID        string `json:"id"`
	State     string `json:"state"`
	Role      string `json:"role,omitempty"`
	LastError string `json:"last_error,omitempty"`
	InFlight  int    `json:"in_flight"`
	// ReceivedPerSec and SentPerSec are rates over the last tick.
	ReceivedPerSec float64 `json:"received_per_sec"`
	SentPerSec     float64 `json:"sent_per_sec"`
	// OutboxDepth is nil when the route has no outbox.
	OutboxDepth *int `json:"outbox_depth,omitempty"`
	// DLQDepth is nil when the bridge has no DLQ store.
	DLQDepth *int `json:"dlq_depth,omitempty"`
}

type liveRoutes struct {
	Routes []liveRoute `json:"routes"`
}

type liveDLQ struct {
	Configured bool           `json:"configured"`
	Depth      int            `json:"depth"`
	ByRoute    map[string]int `json:"by_route"`
}

type liveHealth struct {
	Ready readyBody      `json:"ready"`
	Deep  deepHealthBody `json:"deep"`
}

// sampler remembers the counters of the previous snapshot, so that rates
// cover the time between two snapshots.
type sampler struct {
	at   time.Time
	prev map[string]*routeCounters
}

// events streams snapshots of the routes, the DLQ and the health as
// server-sent events. Each kind is sent when the stream opens and again
// only when it changed; a comment line keeps idle connections open.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	select {
	case s.streams <- struct{}{}:
		defer func() { <-s.streams }()
	default:
		writeError(w, http.StatusTooManyRequests, errorBody{Code: fault.CodeThrottled,
			Message: "too many event streams are open; close one and try again"})
		return
	}
	rc := http.NewResponseController(w)
	// The request is read already; lift the server's read deadline so
	// that it cannot end a stream that lasts longer.
	_ = rc.SetReadDeadline(time.Time{})
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)

	ctx := r.Context()
	tick := time.NewTicker(s.eventTick)
	defer tick.Stop()
	beat := time.NewTicker(s.heartbeat)
	defer beat.Stop()
	last := map[string][]byte{}
	send := func() bool {
		for _, ev := range s.snapshot(ctx) {
			if bytes.Equal(last[ev.name], ev.data) {
				continue
			}
			last[ev.name] = ev.data
			if !writeEvent(w, rc, ev.name, ev.data) {
				return false
			}
		}
		return true
	}
	if !send() {
		return
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.quit:
			return
		case <-tick.C:
			if !send() {
				return
			}
		case <-beat.C:
			if !writeRaw(w, rc, []byte(": ping\n\n")) {
				return
			}
		}
	}
}

type sseEvent struct {
	name string
	data []byte
}

// writeEvent writes one event and flushes it; false when the client is
// gone. Each write extends the connection's write deadline, which the
// server otherwise sets once per request.
func writeEvent(w http.ResponseWriter, rc *http.ResponseController, name string, data []byte) bool {
	var b bytes.Buffer
	b.WriteString("event: ")
	b.WriteString(name)
	b.WriteString("\ndata: ")
	b.Write(data) // compact JSON holds no newline
	b.WriteString("\n\n")
	return writeRaw(w, rc, b.Bytes())
}

func writeRaw(w http.ResponseWriter, rc *http.ResponseController, p []byte) bool {
	_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
	if _, err := w.Write(p); err != nil {
		return false
	}
	return rc.Flush() == nil
}
