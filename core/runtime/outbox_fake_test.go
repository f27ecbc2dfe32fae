package runtime_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// fakeOutbox is a minimal in-memory outbox for the runtime's own tests (the
// real stores live in their own modules and run the conformance suites).
type fakeOutbox struct {
	mu      sync.Mutex
	seq     int
	recs    map[string]*fakeRec
	order   []string
	persist error // injected Persist failure
	changed chan struct{}
}

type fakeRec struct {
	rec     ports.OutboxRecord
	claimed bool
}

func newFakeOutbox() *fakeOutbox {
	return &fakeOutbox{recs: map[string]*fakeRec{}, changed: make(chan struct{}, 1)}
}

func (o *fakeOutbox) Persist(_ context.Context, recs []ports.OutboxRecord) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.persist != nil {
		return o.persist
	}
	for _, r := range recs {
		o.seq++
		r.ID = fmt.Sprintf("rec-%06d", o.seq)
		r.Envelope = r.Envelope.Clone()
		r.CreatedAt = time.Now()
		o.recs[r.ID] = &fakeRec{rec: r}
		o.order = append(o.order, r.ID)
	}
	return nil
}

func (o *fakeOutbox) Claim(_ context.Context, part string, _ ports.LeaseToken, limit int) ([]ports.OutboxRecord, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []ports.OutboxRecord
	now := time.Now()
	for _, id := range o.order {
		r, ok := o.recs[id]
		if !ok || r.claimed || r.rec.Partition != part || r.rec.NextAttemptAt.After(now) {
			continue
		}
		if r.rec.FirstAttemptAt.IsZero() {
			r.rec.FirstAttemptAt = now
		}
		r.claimed = true
		c := r.rec
		c.Envelope = c.Envelope.Clone()
		out = append(out, c)
		if len(out) == limit {
			break
		}
	}
	return out, nil
}

func (o *fakeOutbox) Complete(_ context.Context, id string, _ ports.LeaseToken) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.recs, id)
	o.signal()
	return nil
}

func (o *fakeOutbox) Replay(_ context.Context, id string, _ ports.LeaseToken, cause error, next time.Time) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	r, ok := o.recs[id]
	if !ok {
		return fault.ErrNotFound
	}
	r.claimed = false
	r.rec.ReplayCount++
	r.rec.LastError = cause.Error()
	r.rec.NextAttemptAt = next
	o.signal()
	return nil
}

func (o *fakeOutbox) Depth(_ context.Context, part string) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for _, r := range o.recs {
		if r.rec.Partition == part {
			n++
		}
	}
	return n, nil
}

func (o *fakeOutbox) len() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.recs)
}

func (o *fakeOutbox) signal() {
	select {
	case o.changed <- struct{}{}:
	default:
	}
}
