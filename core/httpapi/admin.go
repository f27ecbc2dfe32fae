package httpapi

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
)

type statusBody struct {
	BridgeID         string    `json:"bridge_id"`
	InstanceID       string    `json:"instance_id"`
	Deployment       string    `json:"deployment"`
	Version          string    `json:"version"`
	StartedAt        time.Time `json:"started_at"`
	Uptime           string    `json:"uptime"`
	UptimeSeconds    float64   `json:"uptime_seconds"`
	Role             string    `json:"role"`
	Routes           int       `json:"routes"`
	ConfigGeneration int       `json:"config_generation"`
}

// status describes the bridge process.
func (s *Server) status(w http.ResponseWriter, r *http.Request) {
	st := s.b.Status(r.Context())
	up := st.Uptime
	if up == 0 && !st.StartedAt.IsZero() {
		up = time.Since(st.StartedAt)
	}
	up = up.Truncate(time.Millisecond)
	writeJSON(w, http.StatusOK, statusBody{
		BridgeID: st.BridgeID, InstanceID: st.InstanceID, Deployment: st.Deployment,
		Version: st.Version, StartedAt: st.StartedAt, Uptime: up.String(),
		UptimeSeconds: up.Seconds(), Role: st.Role, Routes: st.RouteCount,
		ConfigGeneration: st.ConfigGeneration,
	})
}

// config returns the running configuration, already redacted.
func (s *Server) config(w http.ResponseWriter, r *http.Request) {
	c := s.b.Config(r.Context())
	if c == nil {
		c = map[string]any{}
	}
	writeJSON(w, http.StatusOK, c)
}

// validateBody is the validation result and, for a valid document when
// the backend can preview it, what a reload with it would change.
type validateBody struct {
	ValidationResult
	Plan *ReloadPlan `json:"plan,omitempty"`
}

// validateConfig checks a posted YAML document. The answer is 200 with
// valid=false when the document has problems: the request itself worked.
func (s *Server) validateConfig(w http.ResponseWriter, r *http.Request) {
	doc, ok := readBody(w, r, MaxConfigBody)
	if !ok {
		return
	}
	if len(doc) == 0 {
		badRequest(w, "post the YAML document to validate as the request body")
		return
	}
	res := s.b.ValidateConfig(r.Context(), doc)
	if res.Problems == nil {
		res.Problems = []Problem{}
	}
	if res.Warnings == nil {
		res.Warnings = []Problem{}
	}
	body := validateBody{ValidationResult: res}
	if pv, ok := s.b.(ConfigPreviewer); ok && res.Valid {
		if proposed, err := pv.PreviewConfig(r.Context(), doc); err == nil {
			plan := planReload(s.b.Config(r.Context()), proposed)
			body.Plan = &plan
		}
	}
	writeJSON(w, http.StatusOK, body)
}

// reload applies a posted YAML document, or re-reads the configuration
// file when the body is empty.
func (s *Server) reload(w http.ResponseWriter, r *http.Request) {
	doc, ok := readBody(w, r, MaxConfigBody)
	if !ok {
		return
	}
	res, err := s.b.Reload(r.Context(), doc)
	if err != nil {
		s.failWith(w, r, err, res.Problems)
		return
	}
	for _, l := range []*[]string{&res.Added, &res.Removed, &res.Changed} {
		if *l == nil {
			*l = []string{}
		}
	}
	if res.RestartRequired == nil {
		res.RestartRequired = []Problem{}
	}
	writeJSON(w, http.StatusOK, res)
}

// readBody reads at most limit bytes of the request body; it answers 413
// or 400 itself and returns false when the body is unusable.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, bool) {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		if _, tooBig := errors.AsType[*http.MaxBytesError](err); tooBig {
			writeError(w, http.StatusRequestEntityTooLarge, errorBody{Code: fault.CodePayloadTooLarge,
				Message: "request body is larger than the limit of " + byteSize(limit)})
			return nil, false
		}
		badRequest(w, "reading the request body: "+err.Error())
		return nil, false
	}
	return b, true
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
