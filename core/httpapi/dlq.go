package httpapi

import (
	"net/http"
	"strconv"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// Page sizes of the DLQ listing and of bulk redrives.
const (
	DefaultDLQLimit = 100
	MaxDLQLimit     = 1000
)

// dlqStore returns the DLQ store, or answers 404 and returns nil when the
// bridge has none.
func (s *Server) dlqStore(w http.ResponseWriter) ports.DLQStore {
	st := s.b.DLQ()
	if st == nil {
		writeError(w, http.StatusNotFound, errorBody{Code: fault.CodeNotFound,
			Message: "no dead-letter queue store is configured on this bridge"})
	}
	return st
}

type dlqListBody struct {
	Entries    []dlqEntryView `json:"entries"`
	NextCursor string         `json:"next_cursor"`
}

// dlqList pages through entries, oldest first.
func (s *Server) dlqList(w http.ResponseWriter, r *http.Request) {
	st := s.dlqStore(w)
	if st == nil {
		return
	}
	q := r.URL.Query()
	spec := filterSpec{Route: q.Get("route"), Category: q.Get("category"), Since: q.Get("since"), Until: q.Get("until"), Code: q.Get("code")}
	f, msg := spec.parse()
	if msg != "" {
		badRequest(w, msg)
		return
	}
	limit, msg := parseLimit(q.Get("limit"))
	if msg != "" {
		badRequest(w, msg)
		return
	}
	page, err := listMatching(r.Context(), st, f, spec.Code, q.Get("cursor"), limit)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	body := dlqListBody{Entries: make([]dlqEntryView, 0, len(page.Entries)), NextCursor: page.NextCursor}
	for _, e := range page.Entries {
		body.Entries = append(body.Entries, viewEntry(e, false))
	}
	writeJSON(w, http.StatusOK, body)
}

// dlqGet shows one entry with its payload.
func (s *Server) dlqGet(w http.ResponseWriter, r *http.Request) {
	st := s.dlqStore(w)
	if st == nil {
		return
	}
	e, err := st.Get(r.Context(), r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, viewEntry(e, true))
}

// dlqDelete removes one entry.
func (s *Server) dlqDelete(w http.ResponseWriter, r *http.Request) {
	st := s.dlqStore(w)
	if st == nil {
		return
	}
	id := r.PathValue("id")
	if err := st.Delete(r.Context(), id); err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": id, "deleted": true})
}

type redriveOneBody struct {
	ID    string `json:"id"`
	NewID string `json:"new_id"`
}

// dlqRedriveOne sends one entry through its route again, or through the
// route the optional body {"to_route": "..."} names.
func (s *Server) dlqRedriveOne(w http.ResponseWriter, r *http.Request) {
	if s.dlqStore(w) == nil {
		return
	}
	var req struct {
		ToRoute string `json:"to_route"`
	}
	if !decodeJSON(w, r, &req) {
		return
	}
	redrive, ok := s.redriver(w, req.ToRoute)
	if !ok {
		return
	}
	id := r.PathValue("id")
	newID, err := redrive(r.Context(), id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, redriveOneBody{ID: id, NewID: newID})
}

// parseLimit reads a page size: empty means the default; otherwise 1 to
// MaxDLQLimit.
func parseLimit(v string) (int, string) {
	if v == "" {
		return DefaultDLQLimit, ""
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > MaxDLQLimit {
		return 0, "limit must be an integer from 1 to " + strconv.Itoa(MaxDLQLimit)
	}
	return n, ""
}
