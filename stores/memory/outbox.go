package memory

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// outbox is the outbox role of a Store.
type outbox struct {
	mu      sync.Mutex
	seq     uint64
	records map[string]*record
	parts   map[string]*partition
}

// record is a stored outbox record. rec.Envelope is the store's own copy.
type record struct {
	rec  ports.OutboxRecord
	seq  uint64 // persist order
	gen  uint64 // bumped whenever the record is claimed or replayed
	done bool
}

func (o *outbox) init() {
	o.records = make(map[string]*record)
	o.parts = make(map[string]*partition)
}

// part returns the state of partition name, creating it on first use. A
// partition is kept after its last record goes, so that its fencing mark
// is remembered.
func (o *outbox) part(name string) *partition {
	p := o.parts[name]
	if p == nil {
		p = &partition{}
		o.parts[name] = p
	}
	return p
}

// fence checks tok against the mark of p and raises the mark.
func fence(p *partition, name string, tok ports.LeaseToken) error {
	if tok.Version < p.fence {
		return fault.ErrStaleFencingToken.WithMessage(fmt.Sprintf(
			"outbox partition %q: token version %d of %q is older than version %d", name, tok.Version, tok.Owner, p.fence))
	}
	p.fence = tok.Version
	return nil
}

// Persist stores all records or none. It fills empty IDs, sets CreatedAt
// to the clock's now and a zero NextAttemptAt to the same instant, and
// writes these values back into recs. An ID that is already stored, or
// that appears twice in recs, fails the whole batch with DUPLICATE_RECORD;
// a record without an envelope fails it with INVALID_PAYLOAD.
func (s *Store) Persist(ctx context.Context, recs []ports.OutboxRecord) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	now := s.clk.Now()
	filled := make([]ports.OutboxRecord, len(recs))
	batch := make(map[string]struct{}, len(recs))
	o := &s.ob
	o.mu.Lock()
	defer o.mu.Unlock()
	for i, r := range recs {
		if r.Envelope == nil {
			return fault.ErrInvalidPayload.WithMessage(fmt.Sprintf("outbox record %d has no envelope", i))
		}
		if r.ID == "" {
			r.ID = messaging.NewID()
		}
		if _, dup := batch[r.ID]; dup || o.records[r.ID] != nil {
			return fault.ErrDuplicateRecord.WithMessage(fmt.Sprintf("outbox record %q already exists", r.ID))
		}
		batch[r.ID] = struct{}{}
		r.CreatedAt = now
		if r.NextAttemptAt.IsZero() {
			r.NextAttemptAt = now
		}
		filled[i] = r
	}
	for i, r := range filled {
		recs[i].ID, recs[i].CreatedAt, recs[i].NextAttemptAt = r.ID, r.CreatedAt, r.NextAttemptAt
		r.Envelope = copyEnvelope(r.Envelope)
		o.seq++
		rec := &record{rec: r, seq: o.seq}
		o.records[r.ID] = rec
		p := o.part(r.Partition)
		p.depth++
		p.schedule(rec, r.NextAttemptAt, now)
	}
	return nil
}

// Claim marks up to limit due records of partition as claimed under tok,
// raises their ClaimCount by one and returns copies of them in persist
// order. A limit of zero or less claims nothing (the token is still
// checked).
func (s *Store) Claim(ctx context.Context, partition string, tok ports.LeaseToken, limit int) ([]ports.OutboxRecord, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	now := s.clk.Now()
	o := &s.ob
	o.mu.Lock()
	defer o.mu.Unlock()
	p := o.part(partition)
	if err := fence(p, partition, tok); err != nil {
		return nil, err
	}
	if limit <= 0 {
		return nil, nil
	}
	p.promote(now)
	var out []ports.OutboxRecord
	for len(out) < limit {
		r := p.next()
		if r == nil {
			break
		}
		r.gen++
		r.rec.ClaimCount++
		if r.rec.FirstAttemptAt.IsZero() {
			r.rec.FirstAttemptAt = now
		}
		p.schedule(r, now.Add(s.stale), now)
		out = append(out, r.snapshot())
	}
	p.compact()
	return out, nil
}

// Complete removes a record. A record that is already gone is not an
// error, whatever the token.
func (s *Store) Complete(ctx context.Context, id string, tok ports.LeaseToken) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	o := &s.ob
	o.mu.Lock()
	defer o.mu.Unlock()
	r := o.records[id]
	if r == nil {
		return nil
	}
	p := o.parts[r.rec.Partition]
	if err := fence(p, r.rec.Partition, tok); err != nil {
		return err
	}
	r.done = true
	delete(o.records, id)
	p.depth--
	p.compact()
	return nil
}

// Replay releases a record after a failed attempt: ReplayCount grows by
// one, LastError takes cause's message (empty for a nil cause) and the
// record becomes claimable again at next. It fails with NOT_FOUND for an
// unknown record.
func (s *Store) Replay(ctx context.Context, id string, tok ports.LeaseToken, cause error, next time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	now := s.clk.Now()
	o := &s.ob
	o.mu.Lock()
	defer o.mu.Unlock()
	r := o.records[id]
	if r == nil {
		return fault.ErrNotFound.WithMessage(fmt.Sprintf("outbox record %q not found", id))
	}
	p := o.parts[r.rec.Partition]
	if err := fence(p, r.rec.Partition, tok); err != nil {
		return err
	}
	r.rec.ReplayCount++
	r.rec.LastError = ""
	if cause != nil {
		r.rec.LastError = cause.Error()
	}
	r.rec.NextAttemptAt = next
	r.gen++
	p.schedule(r, next, now)
	return nil
}

// Depth returns the number of records of partition not yet completed.
func (s *Store) Depth(ctx context.Context, partition string) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	o := &s.ob
	o.mu.Lock()
	defer o.mu.Unlock()
	if p := o.parts[partition]; p != nil {
		return p.depth, nil
	}
	return 0, nil
}

// snapshot returns a copy of the record the caller may keep and modify.
func (r *record) snapshot() ports.OutboxRecord {
	c := r.rec
	c.Envelope = copyEnvelope(r.rec.Envelope)
	return c
}
