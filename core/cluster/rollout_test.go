package cluster

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/clock"
	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// memLeases is an in-memory lease store on a clock with the semantics the
// lease conformance suite requires of every store: a released lease reads
// as expired at the release, the same owner may take its lease again, and
// every Acquire issues a higher version.
type memLeases struct {
	clk ports.Clock
	mu  sync.Mutex
	m   map[string]*memLease
}

type memLease struct {
	tok      ports.LeaseToken
	expires  time.Time
	released bool
}

func newMemLeases(clk ports.Clock) *memLeases { return &memLeases{clk: clk, m: map[string]*memLease{}} }

func (s *memLeases) Acquire(_ context.Context, key, owner string, ttl time.Duration) (ports.LeaseToken, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clk.Now()
	l := s.m[key]
	if l == nil {
		l = &memLease{}
		s.m[key] = l
	} else if l.tok.Owner != owner && !l.released && now.Before(l.expires) {
		return ports.LeaseToken{}, fault.ErrAlreadyExists.WithMessage(key + " is held by " + l.tok.Owner)
	}
	l.tok = ports.LeaseToken{Owner: owner, Version: l.tok.Version + 1}
	l.expires, l.released = now.Add(ttl), false
	return l.tok, nil
}

func (s *memLeases) Renew(_ context.Context, key string, tok ports.LeaseToken, ttl time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.m[key]
	if l == nil || l.released || l.tok != tok {
		return fault.ErrStaleFencingToken.WithMessage("not current")
	}
	l.expires = s.clk.Now().Add(ttl)
	return nil
}

func (s *memLeases) Release(_ context.Context, key string, tok ports.LeaseToken) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.m[key]
	if l == nil || l.released || l.tok != tok {
		return fault.ErrStaleFencingToken.WithMessage("not current")
	}
	l.released = true
	if now := s.clk.Now(); l.expires.After(now) {
		l.expires = now
	}
	return nil
}

func (s *memLeases) Read(_ context.Context, key string) (ports.Lease, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.m[key]
	if l == nil {
		return ports.Lease{}, false, nil
	}
	return ports.Lease{Key: key, Token: l.tok, ExpiresAt: l.expires}, true, nil
}

const voteTimeout = 10 * time.Second

// cohort is the members of one roster on one store and fake clock.
type cohort struct {
	t       *testing.T
	clk     *clock.Fake
	store   *memLeases
	members map[string]*Rollout
	meters  map[string]*telemetry.Memory
}

func newCohort(t *testing.T, names ...string) *cohort {
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	c := &cohort{t: t, clk: clk, store: newMemLeases(clk), members: map[string]*Rollout{}, meters: map[string]*telemetry.Memory{}}
	for _, n := range names {
		c.members[n] = c.member(n, names)
	}
	return c
}

// member builds a member's Rollout (again, for a restart).
func (c *cohort) member(name string, roster []string) *Rollout {
	c.meters[name] = telemetry.NewMemory()
	r, err := NewRollout(RolloutConfig{Store: c.store, Member: name, Members: roster, Timeout: voteTimeout,
		Poll: time.Second, Clock: c.clk, Logger: slog.New(slog.DiscardHandler), Meter: c.meters[name]})
	if err != nil {
		c.t.Fatal(err)
	}
	return r
}

type result struct {
	out Outcome
	err error
}

// vote starts name's vote for hash; the result arrives on the channel.
func (c *cohort) vote(name, hash string) <-chan result {
	ch := make(chan result, 1)
	go func() {
		out, err := c.members[name].Vote(context.Background(), hash)
		ch <- result{out, err}
	}()
	return ch
}

// waitVoting waits until n members are waiting for the next poll.
func (c *cohort) waitVoting(n int) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.clk.WaitForTimers(ctx, n); err != nil {
		c.t.Fatalf("%d members are not waiting: %v", n, err)
	}
}

// until advances the clock by a poll at a time until ch delivers.
func (c *cohort) until(ch <-chan result) result {
	c.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case r := <-ch:
			return r
		default:
		}
		c.clk.Advance(time.Second)
		select {
		case r := <-ch:
			return r
		case <-time.After(5 * time.Millisecond):
		}
	}
	c.t.Fatal("the vote did not end")
	return result{}
}

func TestRolloutCommitsWhenEveryMemberVotes(t *testing.T) {
	c := newCohort(t, "a", "b", "c")
	a := c.vote("a", "h1")
	c.waitVoting(1)
	b := c.vote("b", "h1")
	c.waitVoting(2)
	got := []result{<-c.vote("c", "h1"), c.until(a), c.until(b)}
	for i, r := range got {
		if r.err != nil || !r.out.Committed || r.out.Round != got[0].out.Round || r.out.Hash != "h1" {
			t.Errorf("member %d: %+v, %v; want a commit of h1 in round %d", i, r.out, r.err, got[0].out.Round)
		}
	}
	if p, live, err := c.members["a"].Pending(t.Context()); live || err != nil {
		t.Errorf("after the commit the round is still open: %+v, %v", p, err)
	}
	for _, m := range []string{"a", "b", "c"} {
		if l, _, _ := c.store.Read(t.Context(), RolloutVotePrefix+m); l.ExpiresAt.After(c.clk.Now()) {
			t.Errorf("%s's vote is still held after the round: %+v", m, l)
		}
	}
}

func TestRolloutAbortsWhenAMemberDoesNotVote(t *testing.T) {
	c := newCohort(t, "a", "b")
	a := c.vote("a", "h1")
	c.waitVoting(1)
	p, live, err := c.members["b"].Pending(t.Context())
	if want := (Proposal{Round: p.Round, Hash: "h1", Proposer: "a", ExpiresAt: c.clk.Now().Add(voteTimeout), Voted: []string{"a"}}); err != nil || !live || !cmp.Equal(want, p) {
		t.Errorf("the open round: %+v, live %v, %v; want %+v", p, live, err, want)
	}
	r := c.until(a)
	if r.err != nil || r.out.Committed || !strings.Contains(r.out.Reason, "b did not vote within 10s") {
		t.Fatalf("a's vote without b's: %+v, %v; want an abort naming b", r.out, r.err)
	}
	// The aborted round is over: the same configuration opens a new one,
	// which commits.
	b := c.vote("b", "h1")
	c.waitVoting(1)
	again := <-c.vote("a", "h1")
	rb := c.until(b)
	if again.err != nil || rb.err != nil || !again.out.Committed || !rb.out.Committed || again.out.Round <= r.out.Round {
		t.Errorf("the retry: a %+v %v, b %+v %v; want both committed in a round after %d", again.out, again.err, rb.out, rb.err, r.out.Round)
	}
}

func TestRolloutRefusesAnotherConfiguration(t *testing.T) {
	c := newCohort(t, "a", "b")
	a := c.vote("a", "h1")
	c.waitVoting(1)
	b := <-c.vote("b", "h2")
	if b.err != nil || b.out.Committed || !strings.Contains(b.out.Reason, "every member must reload the same configuration") ||
		!strings.Contains(b.out.Reason, "member a opened round") {
		t.Errorf("b's vote for another configuration: %+v, %v; want refused naming a's round", b.out, b.err)
	}
	r := c.until(a)
	if r.out.Committed || !strings.Contains(r.out.Reason, "b did not vote") {
		t.Errorf("a: %+v, %v; want an abort", r.out, r.err)
	}
	got := map[string]float64{}
	for m, meter := range c.meters {
		for _, o := range []string{rolloutCommitted, rolloutAborted, rolloutRefused} {
			if v := meter.Value(descRolloutRounds.Name, o); v != 0 {
				got[m+" "+o] = v
			}
		}
		got[m+" round"] = meter.Value(descRolloutRound.Name)
		got[m+" voting"] = meter.Value(descRolloutVoting.Name)
	}
	want := map[string]float64{"a aborted": 1, "b refused": 1, "a round": float64(r.out.Round), "b round": float64(r.out.Round),
		"a voting": 0, "b voting": 0}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rollout metrics (-want +got):\n%s", diff)
	}
}

func TestRolloutDecisionIsWrittenOnce(t *testing.T) {
	c := newCohort(t, "a", "b")
	a := c.vote("a", "h1")
	c.waitVoting(1)
	p, _, _ := c.members["a"].Pending(t.Context())
	// Another member decided the round (here: an abort) before a saw
	// every vote: a follows the decision, and b, voting now, too.
	if _, err := c.store.Acquire(t.Context(), decisionKey(p.Round), "abort:b:the member stopped waiting", time.Hour); err != nil {
		t.Fatal(err)
	}
	b := <-c.vote("b", "h1")
	ra := c.until(a)
	for name, r := range map[string]result{"a": ra, "b": b} {
		if r.err != nil || r.out.Committed || r.out.Reason != fmt.Sprintf("round %d aborted by b: the member stopped waiting", p.Round) {
			t.Errorf("%s: %+v, %v; want the written abort", name, r.out, r.err)
		}
	}
}

func TestRolloutMemberRestartedDuringARound(t *testing.T) {
	c := newCohort(t, "a", "b", "c")
	a := c.vote("a", "h1")
	c.waitVoting(1)
	// An earlier life of b voted in this round and died without
	// withdrawing its vote; restarted, b reloads the same configuration
	// and votes again: its vote is taken over, and the round commits
	// once c votes.
	p, _, _ := c.members["a"].Pending(t.Context())
	if _, err := c.store.Acquire(t.Context(), RolloutVotePrefix+"b", voteOwner(p.Round, "h1"), voteTimeout); err != nil {
		t.Fatal(err)
	}
	b := c.vote("b", "h1")
	c.waitVoting(2)
	rc := <-c.vote("c", "h1")
	ra, rb := c.until(a), c.until(b)
	for name, r := range map[string]result{"a": ra, "b": rb, "c": rc} {
		if r.err != nil || !r.out.Committed || r.out.Round != p.Round {
			t.Errorf("%s: %+v, %v; want a commit in round %d", name, r.out, r.err, p.Round)
		}
	}
}

func TestNewRolloutChecksItsConfig(t *testing.T) {
	store := newMemLeases(clock.System())
	for _, cfg := range []RolloutConfig{
		{Member: "a", Members: []string{"a"}, Timeout: time.Second},
		{Store: store, Member: "z", Members: []string{"a"}, Timeout: time.Second},
		{Store: store, Member: "a", Members: []string{"a"}},
	} {
		if _, err := NewRollout(cfg); fault.CodeOf(err) != fault.CodeInvalidConfig {
			t.Errorf("NewRollout(%+v) = %v, want INVALID_CONFIG", cfg, err)
		}
	}
}
