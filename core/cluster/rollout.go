package cluster

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gobridge-oss/gobridge/core/clock"
	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// RolloutConfig configures a Rollout.
type RolloutConfig struct {
	// Store is the lease store the members share; required.
	Store ports.LeaseStore
	// Member is this member's id (its instance_id); required and in
	// Members.
	Member string
	// Members is the fixed roster; a round commits when all of them vote
	// for the same configuration.
	Members []string
	// Timeout is how long a round stays open for votes; required.
	Timeout time.Duration
	// Poll is how often a waiting member reads the votes (Timeout/20,
	// between 50ms and 1s).
	Poll time.Duration
	// Clock drives the waits and judges expiries (system clock).
	Clock ports.Clock
	// Logger receives the rounds (slog.Default()).
	Logger *slog.Logger
	// Meter receives the rollout metrics (no-op).
	Meter telemetry.Meter
}

// Rollout is one member's side of the coordinated rollout: a member that
// reloads a configuration votes for its hash, and the reload applies only
// when every member of the roster voted for the same hash within the
// round's timeout. Its methods are safe for concurrent use; Vote calls
// run one at a time.
type Rollout struct {
	cfg RolloutConfig
	log *slog.Logger
	m   rolloutMetrics

	voting sync.Mutex // one Vote at a time

	mu   sync.Mutex
	vote *ports.LeaseToken // the vote this member holds, to replace it
	last Outcome           // the last finished round
}

// Outcome is how a round ended for this member.
type Outcome struct {
	// Round is the round number (the proposal's token version); zero when
	// the vote never joined a round.
	Round uint64
	// Hash is the configuration hash voted for.
	Hash string
	// Committed is true when every member voted for Hash: the member
	// applies the configuration.
	Committed bool
	// Reason says why the round did not commit.
	Reason string
}

// Proposal is the open round as the store shows it.
type Proposal struct {
	Round     uint64
	Hash      string
	Proposer  string
	ExpiresAt time.Time
	// Voted lists the members whose vote for Hash in this round is live.
	Voted []string
}

// NewRollout checks cfg and returns a member's rollout.
func NewRollout(cfg RolloutConfig) (*Rollout, error) {
	switch {
	case cfg.Store == nil:
		return nil, fault.ErrInvalidConfig.WithMessage("cluster: a rollout needs a lease store")
	case cfg.Member == "" || !slices.Contains(cfg.Members, cfg.Member):
		return nil, fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("cluster: rollout member %q is not in the roster %v", cfg.Member, cfg.Members))
	case cfg.Timeout <= 0:
		return nil, fault.ErrInvalidConfig.WithMessage("cluster: rollout timeout must be positive")
	}
	if cfg.Poll <= 0 {
		cfg.Poll = min(max(cfg.Timeout/20, 50*time.Millisecond), time.Second)
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.System()
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Meter == nil {
		cfg.Meter = telemetry.Noop()
	}
	return &Rollout{cfg: cfg, log: cfg.Logger, m: newRolloutMetrics(cfg.Meter)}, nil
}

// Poll is the interval at which members read the store.
func (r *Rollout) Poll() time.Duration { return r.cfg.Poll }

// Last is the outcome of the last round this member finished.
func (r *Rollout) Last() Outcome {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// Vote votes for the configuration hash and waits for the round's
// outcome: it joins the open round when it is about the same hash, opens
// one when none is open, and refuses at once when another configuration
// is being voted on. It returns when every member voted for hash (a
// commit), when the round's deadline passed without that, or when another
// member decided the round. A store error or the end of ctx returns an
// error: the member then applies nothing.
func (r *Rollout) Vote(ctx context.Context, hash string) (Outcome, error) {
	r.voting.Lock()
	defer r.voting.Unlock()
	p, opened, out, err := r.join(ctx, hash)
	if err != nil || out.Reason != "" {
		return r.finish(out, false), err
	}
	if opened {
		defer r.closeRound(ctx, p)
	}
	out = Outcome{Round: p.Round, Hash: hash}
	if reason, err := r.cast(ctx, p); err != nil || reason != "" {
		out.Reason = reason
		return r.finish(out, false), err
	}
	r.log.Info("rollout: voted", "round", p.Round, "hash", short(hash), "deadline", p.ExpiresAt)
	r.m.voting.Set(1)
	out, err = r.await(ctx, p)
	r.m.voting.Set(0)
	r.withdraw(ctx)
	return r.finish(out, true), err
}

// finish records the outcome of a round; voted is false when the member
// was refused before it voted.
func (r *Rollout) finish(out Outcome, voted bool) Outcome {
	r.m.record(out, voted)
	r.mu.Lock()
	r.last = out
	r.mu.Unlock()
	if out.Round != 0 {
		r.log.Info("rollout: round over", "round", out.Round, "hash", short(out.Hash), "committed", out.Committed, "reason", out.Reason)
	}
	return out
}

// join finds the round to vote in: the open one when it is about hash,
// or a new one this member opens (opened is true). A round about another
// hash refuses the vote with a reason.
func (r *Rollout) join(ctx context.Context, hash string) (p Proposal, opened bool, out Outcome, err error) {
	for range 3 {
		cur, live, err := r.Pending(ctx)
		if err != nil {
			return Proposal{}, false, Outcome{}, err
		}
		if live {
			if cur.Hash != hash {
				return cur, false, Outcome{Round: cur.Round, Hash: hash, Reason: fmt.Sprintf(
					"member %s opened round %d for configuration %s until %s; this member's configuration is %s: every member must reload the same configuration",
					cur.Proposer, cur.Round, short(cur.Hash), cur.ExpiresAt.Format(time.RFC3339), short(hash))}, nil
			}
			return cur, false, Outcome{}, nil
		}
		tok, err := r.cfg.Store.Acquire(ctx, RolloutProposalKey, r.cfg.Member+":"+hash, r.cfg.Timeout)
		if fault.CodeOf(err) == fault.CodeAlreadyExists {
			continue // another member opened a round first: read it
		}
		if err != nil {
			return Proposal{}, false, Outcome{}, fmt.Errorf("rollout: open a round: %w", err)
		}
		p = Proposal{Round: tok.Version, Hash: hash, Proposer: r.cfg.Member, ExpiresAt: r.cfg.Clock.Now().Add(r.cfg.Timeout)}
		return p, true, Outcome{}, nil
	}
	return Proposal{}, false, Outcome{}, fault.ErrUnavailable.WithMessage("rollout: the open round kept changing; retry the reload")
}

// Pending reads the open round; live is false when none is open.
func (r *Rollout) Pending(ctx context.Context) (p Proposal, live bool, err error) {
	l, ok, err := r.cfg.Store.Read(ctx, RolloutProposalKey)
	if err != nil {
		return Proposal{}, false, fmt.Errorf("rollout: read the open round: %w", err)
	}
	if !ok || !r.cfg.Clock.Now().Before(l.ExpiresAt) {
		return Proposal{}, false, nil
	}
	proposer, hash, _ := strings.Cut(l.Token.Owner, ":")
	p = Proposal{Round: l.Token.Version, Hash: hash, Proposer: proposer, ExpiresAt: l.ExpiresAt}
	votes, err := r.votes(ctx)
	if err != nil {
		return Proposal{}, false, err
	}
	want := voteOwner(p.Round, p.Hash)
	for _, m := range r.cfg.Members {
		if votes[m] == want {
			p.Voted = append(p.Voted, m)
		}
	}
	return p, true, nil
}

// cast writes this member's vote for round p, replacing a vote it holds
// from an earlier round. A vote of an earlier life of this member (before
// a restart) cannot be replaced until it expires: that is a reason.
func (r *Rollout) cast(ctx context.Context, p Proposal) (string, error) {
	r.withdraw(ctx)
	ttl := p.ExpiresAt.Sub(r.cfg.Clock.Now()) + r.cfg.Poll
	if ttl <= r.cfg.Poll {
		return fmt.Sprintf("round %d closed before this member could vote", p.Round), nil
	}
	tok, err := r.cfg.Store.Acquire(ctx, RolloutVotePrefix+r.cfg.Member, voteOwner(p.Round, p.Hash), ttl)
	if fault.CodeOf(err) == fault.CodeAlreadyExists {
		return fmt.Sprintf("an earlier vote of this member is still held (%v); retry once it expires, at most %s from now", err, r.cfg.Timeout), nil
	}
	if err != nil {
		return "", fmt.Errorf("rollout: vote: %w", err)
	}
	r.mu.Lock()
	r.vote = &tok
	r.mu.Unlock()
	return "", nil
}

// withdraw releases the vote this member holds, if any.
func (r *Rollout) withdraw(ctx context.Context) {
	r.mu.Lock()
	tok := r.vote
	r.vote = nil
	r.mu.Unlock()
	if tok != nil {
		if err := r.cfg.Store.Release(context.WithoutCancel(ctx), RolloutVotePrefix+r.cfg.Member, *tok); err != nil {
			r.log.Debug("rollout: release the vote", "err", err)
		}
	}
}

// closeRound ends the round this member opened, so the next one can open
// at once; members still waiting in it read its decision key.
func (r *Rollout) closeRound(ctx context.Context, p Proposal) {
	tok := ports.LeaseToken{Owner: p.Proposer + ":" + p.Hash, Version: p.Round}
	if err := r.cfg.Store.Release(context.WithoutCancel(ctx), RolloutProposalKey, tok); err != nil {
		r.log.Debug("rollout: close the round", "err", err)
	}
}

// await polls the round until it is decided: by this member when every
// vote is in (commit) or the deadline passed (abort), or by another
// member's decision.
func (r *Rollout) await(ctx context.Context, p Proposal) (Outcome, error) {
	for {
		if out, ok, err := r.decision(ctx, p); err != nil || ok {
			return out, err
		}
		votes, err := r.votes(ctx)
		if err != nil {
			return r.decide(ctx, p, "abort:"+r.cfg.Member+":"+err.Error())
		}
		want := voteOwner(p.Round, p.Hash)
		var missing, other []string
		for _, m := range r.cfg.Members {
			switch votes[m] {
			case want:
			case "":
				missing = append(missing, m)
			default:
				other = append(other, m)
			}
		}
		if len(missing)+len(other) == 0 {
			return r.decide(ctx, p, "commit:"+p.Hash)
		}
		if !r.cfg.Clock.Now().Before(p.ExpiresAt) {
			return r.decide(ctx, p, "abort:"+r.cfg.Member+":"+absent(missing, other, r.cfg.Timeout))
		}
		t := r.cfg.Clock.NewTimer(min(r.cfg.Poll, max(p.ExpiresAt.Sub(r.cfg.Clock.Now()), time.Millisecond)))
		select {
		case <-ctx.Done():
			t.Stop()
			_, _ = r.decide(context.WithoutCancel(ctx), p, "abort:"+r.cfg.Member+":the member stopped waiting")
			return Outcome{Round: p.Round, Hash: p.Hash, Reason: "stopped waiting"}, ctx.Err()
		case <-t.C():
		}
	}
}
