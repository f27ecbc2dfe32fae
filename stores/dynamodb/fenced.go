package dynamodb

import (
	"sync/atomic"

	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// fencedWrites counts the guarded outbox writes the store refused because
// their lease token was stale, for Stats and the
// gobridge_dynamodb_fenced_writes_total metric.
type fencedWrites struct {
	n      atomic.Int64
	metric telemetry.Counter
}

func newFencedWrites(m telemetry.Meter, store string) *fencedWrites {
	return &fencedWrites{metric: m.Counter(telemetry.Desc{Name: "gobridge_dynamodb_fenced_writes_total",
		Help:   "Outbox claims, completes and replays refused because their lease token was stale (below the partition's fence, or below the version a newer owner stamped on the record): a drainer that lost its lease tried to write.",
		Labels: []string{"store"}}, store)}
}

func (f *fencedWrites) add() {
	f.n.Add(1)
	f.metric.Add(1)
}
