package httpapi

import (
	"context"
	"net/http"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// RouteRedriver is an optional extension of Backend: a backend that
// implements it can send a dead-lettered message through a route other
// than the one that dead-lettered it.
type RouteRedriver interface {
	// RedriveTo is Backend.Redrive through routeID instead of the
	// entry's own route.
	RedriveTo(ctx context.Context, entryID, routeID string) (newID string, err error)
}

// maxCodeScan bounds how many entries one listing filtered by error code
// reads before it answers with what it found and a cursor to go on from.
const maxCodeScan = 10 * MaxDLQLimit

// redriver returns the function that redrives one entry: through its own
// route when toRoute is empty, else through toRoute when the backend can.
// It answers 501 itself and returns false when it cannot.
func (s *Server) redriver(w http.ResponseWriter, toRoute string) (func(context.Context, string) (string, error), bool) {
	if toRoute == "" {
		return s.b.Redrive, true
	}
	rr, ok := s.b.(RouteRedriver)
	if !ok {
		writeError(w, http.StatusNotImplemented, errorBody{Code: fault.CodeNotSupported,
			Message: "redriving to another route is not supported yet by this bridge"})
		return nil, false
	}
	return func(ctx context.Context, id string) (string, error) { return rr.RedriveTo(ctx, id, toRoute) }, true
}

// listMatching is st.List that also keeps only the entries whose error
// code is code (all when empty). Each store page asked for is no larger
// than the room left, so that every entry of it is either kept or
// skipped and the cursor never passes over an unread match.
func listMatching(ctx context.Context, st ports.DLQStore, f ports.DLQFilter, code, cursor string, limit int) (ports.DLQPage, error) {
	if code == "" {
		return st.List(ctx, f, cursor, limit)
	}
	out := ports.DLQPage{Entries: []ports.DLQEntry{}}
	scanned := 0
	for len(out.Entries) < limit && scanned < maxCodeScan {
		page, err := st.List(ctx, f, cursor, limit-len(out.Entries))
		if err != nil {
			return ports.DLQPage{}, err
		}
		scanned += len(page.Entries)
		for _, e := range page.Entries {
			if e.ErrorCode == code {
				out.Entries = append(out.Entries, e)
			}
		}
		cursor = page.NextCursor
		if cursor == "" || len(page.Entries) == 0 {
			cursor = ""
			break
		}
	}
	out.NextCursor = cursor
	return out, nil
}

// collectIDs gathers the IDs of up to limit entries that match f and
// code, and the cursor after them ("" when none are left).
func collectIDs(ctx context.Context, st ports.DLQStore, f ports.DLQFilter, code string, limit int) ([]string, string, error) {
	var ids []string
	cursor := ""
	for len(ids) < limit {
		page, err := listMatching(ctx, st, f, code, cursor, limit-len(ids))
		if err != nil {
			return nil, "", err
		}
		for _, e := range page.Entries {
			ids = append(ids, e.ID)
		}
		cursor = page.NextCursor
		if cursor == "" {
			break
		}
	}
	return ids, cursor, nil
}

// purge deletes the entries that match f and code. Without a code the
// store purges in one call; with one, the matching entries are listed
// and deleted one by one.
func (s *Server) purge(ctx context.Context, st ports.DLQStore, f ports.DLQFilter, code string) (int, error) {
	if code == "" {
		return st.Purge(ctx, f)
	}
	n := 0
	for {
		ids, cursor, err := collectIDs(ctx, st, f, code, MaxDLQLimit)
		if err != nil {
			return n, err
		}
		for _, id := range ids {
			if err := st.Delete(ctx, id); err != nil && fault.CodeOf(err) != fault.CodeNotFound {
				return n, err
			}
			n++
		}
		if cursor == "" || len(ids) == 0 {
			return n, nil
		}
	}
}
