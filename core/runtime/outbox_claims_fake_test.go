package runtime_test

import (
	"context"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// countingOutbox is fakeOutbox with claims counted as the real stores count
// them: Claim raises the stored record's ClaimCount and returns the raised
// value. crash stands for a drainer process that died holding its claims:
// they are released as a stale-claim takeover would release them, with no
// replay and nothing else recorded.
type countingOutbox struct{ *fakeOutbox }

func newCountingOutbox() countingOutbox { return countingOutbox{newFakeOutbox()} }

func (o countingOutbox) Claim(ctx context.Context, part string, tok ports.LeaseToken, limit int) ([]ports.OutboxRecord, error) {
	got, err := o.fakeOutbox.Claim(ctx, part, tok, limit)
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := range got {
		r := o.recs[got[i].ID]
		r.rec.ClaimCount++
		got[i].ClaimCount = r.rec.ClaimCount
	}
	return got, err
}

// crash releases every claim without a replay.
func (o countingOutbox) crash() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, r := range o.recs {
		r.claimed = false
	}
}

// record returns a copy of the stored record id and whether it is still
// stored.
func (o countingOutbox) record(id string) (ports.OutboxRecord, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	r, ok := o.recs[id]
	if !ok {
		return ports.OutboxRecord{}, false
	}
	return r.rec, true
}
