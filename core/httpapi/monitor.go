package httpapi

import (
	"net/http"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// levelRank orders the readiness levels; unknown levels rank as none.
var levelRank = map[string]int{LevelNone: 0, LevelConnected: 1, LevelSubscribed: 2, LevelFull: 3}

// effectiveLevel applies the standby cap: an instance without a lease
// dispatches nothing, so it never counts as fully ready.
func effectiveLevel(rd Readiness) string {
	lvl := rd.Level
	if _, ok := levelRank[lvl]; !ok {
		lvl = LevelNone
	}
	if rd.Role == RoleStandby && levelRank[lvl] > levelRank[LevelSubscribed] {
		lvl = LevelSubscribed
	}
	return lvl
}

type readyBody struct {
	Ready     bool   `json:"ready"`
	Level     string `json:"level"`
	Requested string `json:"requested"`
	Role      string `json:"role"`
	Detail    string `json:"detail,omitempty"`
}

// health answers liveness: the process serves HTTP.
func (s *Server) health(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// ready answers 200 when the reached level is at least the requested one
// (full when absent), 503 otherwise.
func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	want := r.URL.Query().Get("level")
	if want == "" {
		want = LevelFull
	}
	if _, ok := levelRank[want]; !ok || want == LevelNone {
		badRequest(w, "level must be connected, subscribed or full")
		return
	}
	rd := s.b.Readiness(r.Context())
	got := effectiveLevel(rd)
	body := readyBody{Level: got, Requested: want, Role: rd.Role, Detail: rd.Detail}
	body.Ready = levelRank[got] >= levelRank[want]
	status := http.StatusOK
	if !body.Ready {
		status = http.StatusServiceUnavailable
	}
	writeJSON(w, status, body)
}

type deepHealthBody struct {
	Status          string      `json:"status"`
	Role            string      `json:"role"`
	Components      []Component `json:"components"`
	RestartRequired []string    `json:"restart_required"`
}

var healthRank = map[string]int{HealthUp: 0, HealthDegraded: 1, HealthDown: 2}

// deepHealth reports every component; 503 when the bridge is down.
func (s *Server) deepHealth(w http.ResponseWriter, r *http.Request) {
	body := deepBody(s.b.DeepHealth(r.Context()))
	status := http.StatusOK
	if body.Status == HealthDown {
		status = http.StatusServiceUnavailable
	}
	writeJSON(w, status, body)
}

// deepBody is dh as the API shows it: the overall status derived from the
// components when the backend left it empty, and no null lists.
func deepBody(dh DeepHealth) deepHealthBody {
	body := deepHealthBody{Status: dh.Status, Role: dh.Role, Components: dh.Components, RestartRequired: dh.RestartRequired}
	if body.Status == "" {
		body.Status = HealthUp
		for _, c := range dh.Components {
			if healthRank[c.Status] > healthRank[body.Status] {
				body.Status = c.Status
			}
		}
	}
	if body.Components == nil {
		body.Components = []Component{}
	}
	if body.RestartRequired == nil {
		body.RestartRequired = []string{}
	}
	return body
}

type routesBody struct {
	Routes []RouteStatus `json:"routes"`
}

// routes lists the routes and their states (both APIs).
func (s *Server) routes(w http.ResponseWriter, r *http.Request) {
	rs := s.b.Routes(r.Context())
	if rs == nil {
		rs = []RouteStatus{}
	}
	for i := range rs {
		if rs[i].Bindings == nil {
			rs[i].Bindings = []string{}
		}
	}
	writeJSON(w, http.StatusOK, routesBody{Routes: rs})
}

// metrics serves the backend's Prometheus exposition.
func (s *Server) metrics(w http.ResponseWriter, r *http.Request) {
	h := s.b.Metrics()
	if h == nil {
		writeError(w, http.StatusNotFound, errorBody{Code: fault.CodeNotFound, Message: "metrics are not enabled"})
		return
	}
	h.ServeHTTP(w, r)
}
