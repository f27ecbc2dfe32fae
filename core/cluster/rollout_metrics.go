package cluster

import "github.com/gobridge-oss/gobridge/core/telemetry"

var (
	descRolloutRounds = telemetry.Desc{Name: "gobridge_cluster_rollout_rounds_total",
		Help:   "Coordinated rollout rounds this member voted in or was refused by, by outcome (committed, aborted, refused).",
		Labels: []string{"outcome"}}
	descRolloutRound = telemetry.Desc{Name: "gobridge_cluster_rollout_round",
		Help: "Number of the last coordinated rollout round this member finished."}
	descRolloutVoting = telemetry.Desc{Name: "gobridge_cluster_rollout_voting",
		Help: "1 while this member waits for a coordinated rollout round's outcome, else 0."}
)

// Outcomes counted by gobridge_cluster_rollout_rounds_total.
const (
	rolloutCommitted = "committed"
	rolloutAborted   = "aborted"
	rolloutRefused   = "refused" // refused before voting: another round open, or an old vote held
)

// rolloutMetrics are a member's rollout instruments.
type rolloutMetrics struct {
	rounds map[string]telemetry.Counter
	round  telemetry.Gauge
	voting telemetry.Gauge
}

func newRolloutMetrics(m telemetry.Meter) rolloutMetrics {
	ms := rolloutMetrics{rounds: map[string]telemetry.Counter{}, round: m.Gauge(descRolloutRound), voting: m.Gauge(descRolloutVoting)}
	for _, o := range []string{rolloutCommitted, rolloutAborted, rolloutRefused} {
		ms.rounds[o] = m.Counter(descRolloutRounds, o)
	}
	return ms
}

// record counts a finished round; voted is false when the member was
// refused before it voted.
func (ms rolloutMetrics) record(out Outcome, voted bool) {
	switch {
	case out.Committed:
		ms.rounds[rolloutCommitted].Add(1)
	case voted:
		ms.rounds[rolloutAborted].Add(1)
	default:
		ms.rounds[rolloutRefused].Add(1)
	}
	if out.Round != 0 {
		ms.round.Set(float64(out.Round))
	}
}
