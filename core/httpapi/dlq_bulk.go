package httpapi

import (
	"bytes"
	"cmp"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

var dlqCategories = []ports.DLQCategory{ports.DLQMaxRetries, ports.DLQPermanent, ports.DLQExpired,
	ports.DLQFiltered, ports.DLQRetryUnsupported, ports.DLQRejected}

// filterSpec is a DLQ filter as it arrives in a query or a JSON body.
type filterSpec struct {
	Route    string `json:"route"`
	Category string `json:"category"`
	Since    string `json:"since"`
	Until    string `json:"until"`
	// Code matches the entry's error code exactly. Stores cannot filter
	// on it, so the API skips the entries of other codes itself.
	Code string `json:"code"`
}

// empty reports whether the filter matches every entry.
func (f filterSpec) empty() bool { return f == filterSpec{} }

// parse converts f, or returns a message saying what is wrong.
func (f filterSpec) parse() (ports.DLQFilter, string) {
	out := ports.DLQFilter{RouteID: f.Route, Category: ports.DLQCategory(f.Category)}
	if f.Category != "" && !slices.Contains(dlqCategories, out.Category) {
		return out, "unknown category " + strconv.Quote(f.Category) + "; use max_retries, permanent, expired, filtered, retry_unsupported or rejected"
	}
	var err error
	if f.Since != "" {
		if out.From, err = time.Parse(time.RFC3339Nano, f.Since); err != nil {
			return out, "since must be an RFC 3339 time such as 2026-01-02T15:04:05Z"
		}
	}
	if f.Until != "" {
		if out.To, err = time.Parse(time.RFC3339Nano, f.Until); err != nil {
			return out, "until must be an RFC 3339 time such as 2026-01-02T15:04:05Z"
		}
	}
	if !out.From.IsZero() && !out.To.IsZero() && !out.From.Before(out.To) {
		return out, "since must be before until"
	}
	return out, ""
}

// decodeJSON reads a small JSON body into v; an empty body leaves v as is.
// It answers the error itself and returns false.
func decodeJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	b, ok := readBody(w, r, MaxJSONBody)
	if !ok {
		return false
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return true
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		badRequest(w, "request body: "+err.Error())
		return false
	}
	return true
}

type redriveManyRequest struct {
	filterSpec
	Limit int `json:"limit"`
	// IDs redrives exactly these entries (a selection) instead of those
	// that match the filter, which must then be empty.
	IDs []string `json:"ids"`
	// ToRoute sends the entries through this route instead of their own.
	ToRoute string `json:"to_route"`
}

type redriveFailure struct {
	ID    string    `json:"id"`
	NewID string    `json:"new_id,omitempty"`
	Error errorBody `json:"error"`
}

type redriveManyBody struct {
	Matched   int              `json:"matched"`
	Redriven  int              `json:"redriven"`
	Failed    int              `json:"failed"`
	More      bool             `json:"more"`
	Results   []redriveOneBody `json:"results"`
	Failures  []redriveFailure `json:"failures"`
	Cancelled bool             `json:"cancelled,omitempty"`
}

// dlqRedriveMany redrives up to limit entries that match a filter. It
// first collects the matching IDs, so that a message that fails again and
// is dead-lettered anew is not redriven twice in one call.
func (s *Server) dlqRedriveMany(w http.ResponseWriter, r *http.Request) {
	st := s.dlqStore(w)
	if st == nil {
		return
	}
	var req redriveManyRequest
	if !decodeJSON(w, r, &req) {
		return
	}
	f, msg := req.parse()
	if msg == "" && (req.Limit < 0 || req.Limit > MaxDLQLimit) {
		msg = "limit must be from 1 to " + strconv.Itoa(MaxDLQLimit) + " (0 means " + strconv.Itoa(DefaultDLQLimit) + ")"
	}
	if msg == "" && len(req.IDs) > 0 && !req.empty() {
		msg = "send either ids or a filter, not both"
	}
	if msg == "" && len(req.IDs) > MaxDLQLimit {
		msg = "at most " + strconv.Itoa(MaxDLQLimit) + " ids at once"
	}
	if msg != "" {
		badRequest(w, msg)
		return
	}
	redrive, ok := s.redriver(w, req.ToRoute)
	if !ok {
		return
	}
	limit := cmp.Or(req.Limit, DefaultDLQLimit)
	ctx := r.Context()
	ids, cursor := slices.Clone(req.IDs), ""
	if len(ids) == 0 {
		var err error
		if ids, cursor, err = collectIDs(ctx, st, f, req.Code, limit); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	body := redriveManyBody{Matched: len(ids), More: cursor != "", Results: []redriveOneBody{}, Failures: []redriveFailure{}}
	for _, id := range ids {
		if ctx.Err() != nil {
			body.Cancelled = true
			break
		}
		newID, err := redrive(ctx, id)
		if err != nil {
			body.Failed++
			body.Failures = append(body.Failures, redriveFailure{ID: id, NewID: newID,
				Error: errorBody{Code: fault.CodeOf(err), Message: errMessage(err)}})
			continue
		}
		body.Redriven++
		body.Results = append(body.Results, redriveOneBody{ID: id, NewID: newID})
	}
	writeJSON(w, http.StatusOK, body)
}

type purgeRequest struct {
	filterSpec
	Confirm bool `json:"confirm"`
}

// dlqPurge deletes every entry that matches a filter. It always requires
// "confirm": true, so that an empty or mistyped request never empties the
// queue.
func (s *Server) dlqPurge(w http.ResponseWriter, r *http.Request) {
	st := s.dlqStore(w)
	if st == nil {
		return
	}
	var req purgeRequest
	if !decodeJSON(w, r, &req) {
		return
	}
	f, msg := req.parse()
	if msg != "" {
		badRequest(w, msg)
		return
	}
	if !req.Confirm {
		what := "the entries that match the filter"
		if req.empty() {
			what = "every entry"
		}
		badRequest(w, "purge deletes "+what+`; send "confirm": true to proceed`)
		return
	}
	n, err := s.purge(r.Context(), st, f, req.Code)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]int{"purged": n})
}
