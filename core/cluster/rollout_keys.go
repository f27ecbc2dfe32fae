package cluster

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// Lease keys of the coordinated rollout. Every member of a roster uses the
// same keys on the shared lease store.
const (
	// RolloutProposalKey holds the open round: its owner is
	// "<member>:<hash>" (the member that opened it and the configuration
	// hash it is about), its token version is the round number, and its
	// expiry the round's deadline.
	RolloutProposalKey = "rollout/proposal"
	// RolloutVotePrefix + member holds that member's vote: owner
	// "<round>:<hash>", until the round's deadline.
	RolloutVotePrefix = "rollout/vote/"
	// RolloutDecisionPrefix + round holds the round's outcome, written
	// once by whichever member gets there first: owner "commit:<hash>"
	// or "abort:<member>:<reason>".
	RolloutDecisionPrefix = "rollout/decision/"
)

// decisionTTL keeps a decision key taken long after every member of its
// round has read it, so nobody can write a second outcome over it.
const decisionTTL = 24 * time.Hour

// absent says which members kept the round from committing.
func absent(missing, other []string, timeout time.Duration) string {
	var parts []string
	if len(missing) > 0 {
		parts = append(parts, fmt.Sprintf("%s did not vote within %s", strings.Join(missing, ", "), timeout))
	}
	if len(other) > 0 {
		parts = append(parts, strings.Join(other, ", ")+" voted for another configuration or round")
	}
	return strings.Join(parts, "; ")
}

// votes reads every member's vote: member to "<round>:<hash>" while live.
func (r *Rollout) votes(ctx context.Context) (map[string]string, error) {
	out := map[string]string{}
	now := r.cfg.Clock.Now()
	for _, m := range r.cfg.Members {
		l, ok, err := r.cfg.Store.Read(ctx, RolloutVotePrefix+m)
		if err != nil {
			return nil, fmt.Errorf("rollout: read the vote of %s: %w", m, err)
		}
		if ok && now.Before(l.ExpiresAt) {
			out[m] = l.Token.Owner
		}
	}
	return out, nil
}

// decide writes the round's outcome unless another member wrote one
// first; either way it returns the outcome the store holds.
func (r *Rollout) decide(ctx context.Context, p Proposal, owner string) (Outcome, error) {
	_, err := r.cfg.Store.Acquire(ctx, decisionKey(p.Round), owner, max(decisionTTL, 10*r.cfg.Timeout))
	if err != nil && fault.CodeOf(err) != fault.CodeAlreadyExists {
		return Outcome{Round: p.Round, Hash: p.Hash, Reason: "the round's outcome could not be written"},
			fmt.Errorf("rollout: decide round %d: %w", p.Round, err)
	}
	out, ok, err := r.decision(ctx, p)
	if err == nil && !ok {
		err = errors.New("rollout: the decision written is not there")
	}
	return out, err
}

// decision reads the round's outcome; ok is false while undecided.
func (r *Rollout) decision(ctx context.Context, p Proposal) (Outcome, bool, error) {
	l, ok, err := r.cfg.Store.Read(ctx, decisionKey(p.Round))
	if err != nil {
		return Outcome{}, false, fmt.Errorf("rollout: read round %d's outcome: %w", p.Round, err)
	}
	if !ok {
		return Outcome{}, false, nil
	}
	out := Outcome{Round: p.Round, Hash: p.Hash}
	kind, rest, _ := strings.Cut(l.Token.Owner, ":")
	switch {
	case kind == "commit" && rest == p.Hash:
		out.Committed = true
	case kind == "commit":
		out.Reason = fmt.Sprintf("round %d committed another configuration (%s)", p.Round, short(rest))
	default:
		by, why, _ := strings.Cut(rest, ":")
		out.Reason = fmt.Sprintf("round %d aborted by %s: %s", p.Round, by, why)
	}
	return out, true, nil
}

func voteOwner(round uint64, hash string) string { return strconv.FormatUint(round, 10) + ":" + hash }

func decisionKey(round uint64) string { return RolloutDecisionPrefix + strconv.FormatUint(round, 10) }

// short is the start of a hash, enough to tell configurations apart in
// messages.
func short(hash string) string {
	if len(hash) > 12 {
		return hash[:12]
	}
	return hash
}
