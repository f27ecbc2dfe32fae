package httpapi

import (
	"net/http"
	"slices"
	"strings"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// endpoint is one method on one path pattern (net/http pattern syntax).
type endpoint struct {
	method, path string
	scope        scope
	handle       http.HandlerFunc
}

// monitorEndpoints lists the monitor API.
func (s *Server) monitorEndpoints() []endpoint {
	const p = "/api/v1/monitor"
	return []endpoint{
		{http.MethodGet, p + "/health", scopeOpen, s.health},
		{http.MethodGet, p + "/live", scopeOpen, s.health},
		{http.MethodGet, p + "/ready", scopeOpen, s.ready},
		{http.MethodGet, p + "/deephealth", scopeMonitor, s.deepHealth},
		{http.MethodGet, p + "/routes", scopeMonitor, s.routes},
		{http.MethodGet, p + "/metrics", scopeMonitor, s.metrics},
		{http.MethodGet, "/metrics", scopeMonitor, s.metrics},
	}
}

// adminEndpoints lists the admin API.
func (s *Server) adminEndpoints() []endpoint {
	const p = "/api/v1/admin"
	return []endpoint{
		{http.MethodGet, p + "/status", scopeAdmin, s.status},
		{http.MethodGet, p + "/routes", scopeAdmin, s.routes},
		{http.MethodGet, p + "/dlq", scopeAdmin, s.dlqList},
		{http.MethodGet, p + "/dlq/{id}", scopeAdmin, s.dlqGet},
		{http.MethodDelete, p + "/dlq/{id}", scopeAdmin, s.dlqChanged(s.dlqDelete)},
		{http.MethodPost, p + "/dlq/{id}/redrive", scopeAdmin, s.dlqChanged(s.dlqRedriveOne)},
		{http.MethodPost, p + "/dlq/redrive", scopeAdmin, s.dlqChanged(s.dlqRedriveMany)},
		{http.MethodPost, p + "/dlq/purge", scopeAdmin, s.dlqChanged(s.dlqPurge)},
		{http.MethodGet, p + "/config", scopeAdmin, s.config},
		{http.MethodPost, p + "/config/validate", scopeAdmin, s.validateConfig},
		{http.MethodPost, p + "/reload", scopeAdmin, s.reload},
		{http.MethodGet, p + "/events", scopeAdmin, s.events},
	}
}

// newMux builds a handler for eps. Each path is registered without a
// method so that a wrong method gets a JSON 405 with an Allow header, and
// unknown paths get a JSON 404.
func (s *Server) newMux(eps []endpoint) http.Handler {
	mux := http.NewServeMux()
	byPath := make(map[string][]endpoint)
	var order []string
	for _, e := range eps {
		if _, ok := byPath[e.path]; !ok {
			order = append(order, e.path)
		}
		byPath[e.path] = append(byPath[e.path], e)
	}
	for _, path := range order {
		mux.Handle(path, s.methods(byPath[path]))
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, errorBody{Code: fault.CodeNotFound, Message: "no endpoint at " + r.URL.Path})
	})
	return s.cors(mux)
}

// methods dispatches on the request method among eps, which share a path.
func (s *Server) methods(eps []endpoint) http.Handler {
	allow := make([]string, 0, len(eps))
	for _, e := range eps {
		allow = append(allow, e.method)
	}
	slices.Sort(allow)
	allowed := strings.Join(allow, ", ")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, e := range eps {
			if e.method == r.Method {
				if s.authorize(w, r, e.scope) {
					e.handle(w, r)
				}
				return
			}
		}
		w.Header().Set("Allow", allowed)
		writeError(w, http.StatusMethodNotAllowed, errorBody{Code: fault.CodeNotSupported, Message: r.Method + " is not allowed here; use " + allowed})
	})
}

// cors adds CORS headers for the configured origins and answers
// preflight requests. Requests from other origins get no CORS headers, so
// browsers refuse to expose the response.
func (s *Server) cors(next http.Handler) http.Handler {
	if len(s.origins) == 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin == "" {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Add("Vary", "Origin")
		_, listed := s.origins[strings.ToLower(origin)]
		preflight := r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
		if listed {
			w.Header().Set("Access-Control-Allow-Origin", origin)
		}
		if !preflight {
			next.ServeHTTP(w, r)
			return
		}
		if !listed {
			writeError(w, http.StatusForbidden, errorBody{Code: fault.CodeForbidden, Message: "origin " + origin + " is not allowed"})
			return
		}
		h := w.Header()
		h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE")
		h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type")
		h.Set("Access-Control-Max-Age", "600")
		w.WriteHeader(http.StatusNoContent)
	})
}
