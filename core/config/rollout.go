package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"
)

// Rollout modes accepted in Cluster.Rollout.
const (
	// RolloutRefuse refuses every live reload that changes something;
	// the cohort is changed by replacing every instance.
	RolloutRefuse = "refuse"
	// RolloutIndependent applies a live reload on the member that
	// receives it, as a standalone bridge does.
	RolloutIndependent = "independent"
	// RolloutCoordinated applies a live reload once every member of the
	// roster reloaded the same configuration within the vote timeout.
	RolloutCoordinated = "coordinated"
)

// Vote timeout bounds of a coordinated rollout.
const (
	// DefaultVoteTimeout is Cluster.VoteTimeout when unset.
	DefaultVoteTimeout = 30 * time.Second
	// MaxVoteTimeout keeps a reload that waits for the vote inside the
	// admin API's two-minute write timeout.
	MaxVoteTimeout = 90 * time.Second
)

// Cluster says how the members of a clustered deployment take a live
// reload.
type Cluster struct {
	// Rollout is refuse (the default), independent or coordinated.
	Rollout string `yaml:"rollout" enum:"refuse,independent,coordinated"`
	// Members is the fixed roster of a coordinated rollout: the
	// instance_id of every member, this one included.
	Members []string `yaml:"members"`
	// VoteTimeout bounds how long a coordinated reload waits for every
	// member's vote (30s, at most 90s).
	VoteTimeout time.Duration `yaml:"vote_timeout"`
}

func (c *Cluster) applyDefaults() {
	if c == nil {
		return
	}
	c.Rollout = orDefault(c.Rollout, RolloutRefuse)
	if c.Rollout == RolloutCoordinated {
		c.VoteTimeout = orDefault(c.VoteTimeout, DefaultVoteTimeout)
	}
}

// RolloutMode is the rollout mode in force: empty on a standalone
// deployment, refuse on a clustered one that does not set it.
func (b Bridge) RolloutMode() string {
	if b.Deployment != DeploymentClustered {
		return ""
	}
	if b.Cluster == nil || b.Cluster.Rollout == "" {
		return RolloutRefuse
	}
	return b.Cluster.Rollout
}

// RolloutTimeout is the vote timeout of a coordinated rollout, with its
// default.
func (b Bridge) RolloutTimeout() time.Duration {
	if b.Cluster == nil {
		return DefaultVoteTimeout
	}
	return orDefault(b.Cluster.VoteTimeout, DefaultVoteTimeout)
}

// RolloutHash identifies a configuration for a coordinated rollout: a
// SHA-256 over the whole model except bridge.instance_id (which differs
// per member), with every value that came from a ${env:} or ${file:}
// reference and every field marked secret counted by its presence only.
// Members that load the same file, each with its own instance_id and its
// own credentials, get the same hash.
func (f *File) RolloutHash() (string, error) {
	c := *f
	c.Bridge.InstanceID = ""
	m := encoder{secrets: f.secrets}.encode("", reflect.ValueOf(&c).Elem())
	raw, err := json.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("config: rollout hash: %w", err)
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:]), nil
}

// LiveBlockers lists the changes from old to new that no rollout mode
// applies to a running clustered member, each with its reason: the store
// identity (stores.*), the deployment shape (bridge.deployment and the
// bridge.cluster block) and the exclusive-session identity (the lease
// owner bridge.instance_id, and for a route kept by the reload its session
// block, session_id, connect_after_lease and the type and client_id of the
// session it holds). They need every instance replaced.
func LiveBlockers(old, new *File) []Warning {
	var ws []Warning
	add := func(path, why string) { ws = append(ws, Warning{Path: path, Message: why}) }
	const (
		store   = "store identity: the members share these stores; change them by replacing every instance"
		shape   = "deployment shape: every member must run with the same shape; change it by replacing every instance"
		session = "exclusive-session identity: the members hand this session over by its lease; change it by replacing every instance"
	)
	for _, w := range restartReasons(old, new) {
		switch {
		case strings.HasPrefix(w.Path, "stores"):
			add(w.Path, store)
		case w.Path == "bridge.deployment" || w.Path == "bridge.cluster":
			add(w.Path, shape)
		case w.Path == "bridge.instance_id":
			add(w.Path, "exclusive-session identity: the instance_id is this member's lease owner; change it by restarting the member")
		}
	}
	oldRoutes := routesByID(old)
	for i := range new.Routes {
		n := &new.Routes[i]
		if o, ok := oldRoutes[n.ID]; ok {
			if path, changed := sessionIdentityChange(old, new, o, n, index("routes", i)); changed {
				add(path, session)
			}
		}
	}
	return ws
}

// sessionIdentityChange compares the exclusive-session identity of one
// route, at path in the new file, and names the first part that changed.
func sessionIdentityChange(old, new *File, o, n *Route, path string) (string, bool) {
	if (o.Session == nil) != (n.Session == nil) {
		return join(path, "session"), true
	}
	if o.Session == nil {
		return "", false
	}
	if o.Session.SessionID != n.Session.SessionID {
		return join(path, "session.session_id"), true
	}
	if connects(o.Session) != connects(n.Session) {
		return join(path, "session.connect_after_lease"), true
	}
	a, b := findComponent(old.Sessions, o.Session.SessionID), findComponent(new.Sessions, n.Session.SessionID)
	if a == nil || b == nil {
		return "", false
	}
	at := index("sessions", slicesIndex(new.Sessions, b.ID))
	if a.Type != b.Type {
		return join(at, "type"), true
	}
	if !reflect.DeepEqual(a.Settings["client_id"], b.Settings["client_id"]) {
		return join(at, "settings.client_id"), true
	}
	return "", false
}

// slicesIndex is the position of the component id in cs.
func slicesIndex(cs []Component, id string) int {
	for i := range cs {
		if cs[i].ID == id {
			return i
		}
	}
	return -1
}

// connects is connect_after_lease with its default, true.
func connects(s *RouteSession) bool { return s.ConnectAfterLease == nil || *s.ConnectAfterLease }
