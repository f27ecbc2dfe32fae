package memory

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"sync"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// DefaultDLQPageSize is the page size of List when the limit is zero or
// less.
const DefaultDLQPageSize = 100

// dlq is the dead-letter role of a Store.
type dlq struct {
	mu    sync.Mutex
	seq   uint64
	byID  map[string]*dlqItem
	order []*dlqItem // ascending seq, that is write order
}

// dlqItem is a stored entry; e.Envelope is the store's own copy.
type dlqItem struct {
	seq uint64
	e   ports.DLQEntry
}

func (d *dlq) init() { d.byID = make(map[string]*dlqItem) }

// Write stores a copy of entry. It fills an empty ID; an ID that is
// already stored fails with DUPLICATE_RECORD.
func (s *Store) Write(ctx context.Context, entry ports.DLQEntry) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	d := &s.dlq
	d.mu.Lock()
	defer d.mu.Unlock()
	if entry.ID == "" {
		entry.ID = messaging.NewID()
	}
	if d.byID[entry.ID] != nil {
		return fault.ErrDuplicateRecord.WithMessage(fmt.Sprintf("DLQ entry %q already exists", entry.ID))
	}
	entry.Envelope = copyEnvelope(entry.Envelope)
	d.seq++
	it := &dlqItem{seq: d.seq, e: entry}
	d.byID[entry.ID] = it
	d.order = append(d.order, it)
	return nil
}

// List returns up to limit entries matching f, oldest first, after the
// cursor. The cursor names the last entry of the previous page by its
// write sequence, so writes and deletes between pages neither repeat nor
// skip entries. NextCursor is empty when no further entry matches.
func (s *Store) List(ctx context.Context, f ports.DLQFilter, cursor string, limit int) (ports.DLQPage, error) {
	if err := ctx.Err(); err != nil {
		return ports.DLQPage{}, err
	}
	after, err := parseCursor(cursor)
	if err != nil {
		return ports.DLQPage{}, err
	}
	if limit <= 0 {
		limit = DefaultDLQPageSize
	}
	d := &s.dlq
	d.mu.Lock()
	defer d.mu.Unlock()
	var page ports.DLQPage
	var last uint64
	for _, it := range d.order[d.after(after):] {
		if !matches(f, it.e) {
			continue
		}
		if len(page.Entries) == limit {
			page.NextCursor = strconv.FormatUint(last, 10)
			break
		}
		page.Entries = append(page.Entries, it.snapshot())
		last = it.seq
	}
	return page, nil
}

// Get returns a copy of the entry with id, or NOT_FOUND.
func (s *Store) Get(ctx context.Context, id string) (ports.DLQEntry, error) {
	if err := ctx.Err(); err != nil {
		return ports.DLQEntry{}, err
	}
	d := &s.dlq
	d.mu.Lock()
	defer d.mu.Unlock()
	it := d.byID[id]
	if it == nil {
		return ports.DLQEntry{}, notFound(id)
	}
	return it.snapshot(), nil
}

// Delete removes the entry with id, or fails with NOT_FOUND.
func (s *Store) Delete(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	d := &s.dlq
	d.mu.Lock()
	defer d.mu.Unlock()
	it := d.byID[id]
	if it == nil {
		return notFound(id)
	}
	delete(d.byID, id)
	i := d.after(it.seq - 1)
	d.order = slices.Delete(d.order, i, i+1)
	return nil
}

// Purge removes every entry matching f and returns how many it removed.
func (s *Store) Purge(ctx context.Context, f ports.DLQFilter) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	d := &s.dlq
	d.mu.Lock()
	defer d.mu.Unlock()
	before := len(d.order)
	d.order = slices.DeleteFunc(d.order, func(it *dlqItem) bool {
		if matches(f, it.e) {
			delete(d.byID, it.e.ID)
			return true
		}
		return false
	})
	return before - len(d.order), nil
}

// Count returns the number of entries matching f.
func (s *Store) Count(ctx context.Context, f ports.DLQFilter) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	d := &s.dlq
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for _, it := range d.order {
		if matches(f, it.e) {
			n++
		}
	}
	return n, nil
}

// after returns the index of the first entry whose sequence is above seq.
func (d *dlq) after(seq uint64) int {
	return sort.Search(len(d.order), func(i int) bool { return d.order[i].seq > seq })
}

// snapshot returns a copy of the entry the caller may keep and modify.
func (it *dlqItem) snapshot() ports.DLQEntry {
	c := it.e
	c.Envelope = copyEnvelope(it.e.Envelope)
	return c
}

// matches reports whether e passes f.
func matches(f ports.DLQFilter, e ports.DLQEntry) bool {
	switch {
	case f.RouteID != "" && e.RouteID != f.RouteID:
		return false
	case f.Category != "" && e.Category != f.Category:
		return false
	case !f.From.IsZero() && e.LastFailureAt.Before(f.From):
		return false
	case !f.To.IsZero() && !e.LastFailureAt.Before(f.To):
		return false
	}
	return true
}

// parseCursor decodes a List cursor; the empty cursor is the start.
func parseCursor(cursor string) (uint64, error) {
	if cursor == "" {
		return 0, nil
	}
	seq, err := strconv.ParseUint(cursor, 10, 64)
	if err != nil {
		return 0, fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("invalid DLQ cursor %q", clip(cursor)))
	}
	return seq, nil
}

// clip shortens a client's input for an error message, so that a huge or
// hostile value is not echoed whole.
func clip(s string) string {
	const max = 40
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}

func notFound(id string) error {
	return fault.ErrNotFound.WithMessage(fmt.Sprintf("DLQ entry %q not found", id))
}
