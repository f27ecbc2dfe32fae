package httpsse

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// heartbeat is the comment line written to an idle stream.
var heartbeat = []byte(": heartbeat\n\n")

// maxBatchWrite bounds the events written between two flushes.
const maxBatchWrite = 64

// serveStream serves one subscription until the client leaves, falls too
// far behind, or the sender closes.
func (s *SSESender) serveStream(w http.ResponseWriter, req *http.Request) {
	s.streams.add(1)
	defer s.streams.add(-1)
	if !s.cors(w, req) {
		writeRefusal(w, http.StatusForbidden, fault.CodeForbidden, "origin not allowed")
		return
	}
	if s.keys.enabled() {
		token, presented := bearerToken(req)
		if !presented {
			token, presented = req.URL.Query().Get("access_token"), req.URL.Query().Has("access_token")
		}
		if !presented || !s.keys.allows(token) {
			challenge(w, presented)
			writeRefusal(w, http.StatusUnauthorized, fault.CodeNotAuthorized, "missing or invalid bearer key")
			return
		}
	}
	name := channelName(req)
	if err := checkChannel(name); err != nil {
		writeRefusal(w, http.StatusBadRequest, fault.CodeInvalidTopic, err.Error()+"; subscribe to "+s.cfg.Path+"/{channel}")
		return
	}
	if !s.cfg.channelAllowed(name) {
		// 404 also tells an EventSource to stop reconnecting.
		writeRefusal(w, http.StatusNotFound, fault.CodeNotFound, "no such channel")
		return
	}
	mode := startLive
	last, resume := lastEventID(req)
	switch {
	case resume:
		mode = startResume
	case s.cfg.channel(name).replayFrom == ReplayFromEarliest:
		mode = startEarliest
	}
	ch, sub, plan, err := s.hub.subscribe(req.Context(), name, clientAddr(req), mode, last)
	if err != nil {
		status := http.StatusServiceUnavailable
		if err == errAddrFull {
			status = http.StatusTooManyRequests
		}
		w.Header().Set("Retry-After", "1")
		writeRefusal(w, status, fault.CodeOf(err), err.Error())
		return
	}
	defer s.hub.unsubscribe(ch, sub)

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // tell nginx not to buffer the stream
	w.WriteHeader(http.StatusOK)
	st := &stream{w: w, rc: http.NewResponseController(w), timeout: s.cfg.WriteTimeout}
	st.write(s.retryField())
	if !s.replay(req.Context(), st, name, plan) {
		return
	}
	beat := time.NewTicker(s.cfg.HeartbeatInterval)
	defer beat.Stop()
	for {
		select {
		case f := <-sub.queue:
			st.write(f.b)
			for n := 1; n < maxBatchWrite; n++ {
				select {
				case f := <-sub.queue:
					st.write(f.b)
					continue
				default:
				}
				break
			}
			if !st.flush() {
				return
			}
		case <-beat.C:
			st.write(heartbeat)
			if !st.flush() {
				return
			}
		case <-sub.kicked:
			return
		case <-s.closing:
			return
		case <-req.Context().Done():
			return
		}
	}
}

// stream writes to one client, each batch bounded by a write deadline.
type stream struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	armed   bool
	err     error
}

func (st *stream) write(b []byte) {
	if st.err != nil {
		return
	}
	if !st.armed {
		// Without deadline support (a test recorder) writes just block.
		_ = st.rc.SetWriteDeadline(time.Now().Add(st.timeout))
		st.armed = true
	}
	_, st.err = st.w.Write(b)
}

// flush sends what was written and reports whether the stream still works.
func (st *stream) flush() bool {
	if st.err == nil {
		st.err = st.rc.Flush()
	}
	st.armed = false
	return st.err == nil
}

// channelName reads the channel a subscription names: the path after
// Path, else the channel query parameter.
func channelName(req *http.Request) string {
	if name := req.PathValue("channel"); name != "" {
		return name
	}
	return req.URL.Query().Get("channel")
}

// lastEventID reads the resume point from the Last-Event-ID header or,
// for clients that cannot set it, the last_event_id query parameter. An
// id that is not a decimal event id is ignored: the client is served as
// one without an id (see replay_from).
func lastEventID(req *http.Request) (uint64, bool) {
	v := req.Header.Get("Last-Event-ID")
	if v == "" {
		v = req.URL.Query().Get("last_event_id")
	}
	if v == "" {
		return 0, false
	}
	n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
	return n, err == nil
}

// cors sets the CORS response headers for an allowed cross-origin request
// and reports whether the request may proceed: same-origin and non-browser
// requests (no Origin header) always may.
func (s *SSESender) cors(w http.ResponseWriter, req *http.Request) bool {
	origin := req.Header.Get("Origin")
	if origin == "" || sameOrigin(origin, req) {
		return true
	}
	if !s.anyOrig && !s.origins[origin] {
		return false
	}
	h := w.Header()
	if s.anyOrig {
		h.Set("Access-Control-Allow-Origin", "*")
	} else {
		h.Set("Access-Control-Allow-Origin", origin)
		h.Add("Vary", "Origin")
	}
	return true
}

func sameOrigin(origin string, req *http.Request) bool {
	host, ok := strings.CutPrefix(origin, "http://")
	if !ok {
		host, ok = strings.CutPrefix(origin, "https://")
	}
	return ok && strings.EqualFold(host, req.Host)
}

// preflight answers a CORS preflight for a subscription.
func (s *SSESender) preflight(w http.ResponseWriter, req *http.Request) {
	if !s.cors(w, req) {
		w.WriteHeader(http.StatusForbidden)
		return
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Methods", "GET")
	h.Set("Access-Control-Allow-Headers", "Authorization, Last-Event-ID, Cache-Control")
	h.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
