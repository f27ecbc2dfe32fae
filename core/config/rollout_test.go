package config

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// clustered is base on a clustered deployment with instance_id a.
func clustered(t *testing.T, cluster *Cluster) *File {
	t.Helper()
	f := base(t)
	f.Bridge.Deployment, f.Bridge.InstanceID, f.Bridge.Cluster = DeploymentClustered, "a", cluster
	return f
}

func problemPaths(t *testing.T, err error) []string {
	t.Helper()
	var ps Problems
	if err == nil {
		return nil
	}
	if !errors.As(err, &ps) {
		t.Fatalf("Validate() = %v", err)
	}
	var out []string
	for _, p := range ps {
		out = append(out, p.Path)
	}
	return out
}

func TestRolloutValidation(t *testing.T) {
	for _, tc := range []struct {
		name string
		mut  func(f *File)
		want []string
	}{
		{"clustered without a block", func(f *File) {}, nil},
		{"refuse", func(f *File) { f.Bridge.Cluster = &Cluster{Rollout: RolloutRefuse} }, nil},
		{"independent", func(f *File) { f.Bridge.Cluster = &Cluster{Rollout: RolloutIndependent} }, nil},
		{"coordinated", func(f *File) {
			f.Bridge.Cluster = &Cluster{Rollout: RolloutCoordinated, Members: []string{"a", "b"}, VoteTimeout: 5 * time.Second}
		}, nil},
		{"standalone with a block", func(f *File) {
			f.Bridge.Deployment, f.Bridge.Cluster = DeploymentStandalone, &Cluster{Rollout: RolloutIndependent}
		}, []string{"bridge.cluster"}},
		{"unknown mode", func(f *File) { f.Bridge.Cluster = &Cluster{Rollout: "gossip"} }, []string{"bridge.cluster.rollout"}},
		{"roster without coordinated", func(f *File) {
			f.Bridge.Cluster = &Cluster{Rollout: RolloutIndependent, Members: []string{"a"}, VoteTimeout: time.Second}
		}, []string{"bridge.cluster.members", "bridge.cluster.vote_timeout"}},
		{"coordinated without a roster", func(f *File) { f.Bridge.Cluster = &Cluster{Rollout: RolloutCoordinated} },
			[]string{"bridge.cluster.members"}},
		{"roster without this instance", func(f *File) {
			f.Bridge.Cluster = &Cluster{Rollout: RolloutCoordinated, Members: []string{"b", "c"}}
		}, []string{"bridge.cluster.members"}},
		{"roster with a duplicate and an empty entry", func(f *File) {
			f.Bridge.Cluster = &Cluster{Rollout: RolloutCoordinated, Members: []string{"a", "", "a"}}
		}, []string{"bridge.cluster.members[1]", "bridge.cluster.members[2]"}},
		{"vote timeout out of range", func(f *File) {
			f.Bridge.Cluster = &Cluster{Rollout: RolloutCoordinated, Members: []string{"a"}, VoteTimeout: 5 * time.Minute}
		}, []string{"bridge.cluster.vote_timeout"}},
		{"coordinated without a lease store", func(f *File) {
			f.Stores.Lease = nil
			f.Bridge.Cluster = &Cluster{Rollout: RolloutCoordinated, Members: []string{"a"}}
		}, []string{"bridge.cluster.rollout"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := clustered(t, nil)
			tc.mut(f)
			_, err := f.ValidateWith(preview)
			if diff := cmp.Diff(tc.want, problemPaths(t, err)); diff != "" {
				t.Errorf("problems (-want +got):\n%s\n%v", diff, err)
			}
		})
	}
}

func TestRolloutDefaultsAndDecoding(t *testing.T) {
	parse := func(block string) (*File, error) {
		return Parse([]byte(strings.Replace(baseYAML, "bridge: {id: b}",
			"bridge: {id: b, deployment: clustered, instance_id: a"+block+"}", 1)), WithEnv(nil))
	}
	for _, tc := range []struct {
		block       string
		mode        string
		voteTimeout time.Duration
	}{
		{"", RolloutRefuse, 0},
		{", cluster: {}", RolloutRefuse, 0},
		{", cluster: {rollout: independent}", RolloutIndependent, 0},
		{", cluster: {rollout: coordinated, members: [a, b]}", RolloutCoordinated, DefaultVoteTimeout},
		{", cluster: {rollout: coordinated, members: [a, b], vote_timeout: 4s}", RolloutCoordinated, 4 * time.Second},
	} {
		f, err := parse(tc.block)
		if err != nil {
			t.Fatalf("%q: %v", tc.block, err)
		}
		var vt time.Duration
		if f.Bridge.Cluster != nil {
			vt = f.Bridge.Cluster.VoteTimeout
		}
		if f.Bridge.RolloutMode() != tc.mode || vt != tc.voteTimeout {
			t.Errorf("%q: mode %q, vote_timeout %s; want %q, %s", tc.block, f.Bridge.RolloutMode(), vt, tc.mode, tc.voteTimeout)
		}
	}
	if _, err := parse(", cluster: {rollout: refuse, quorum: 2}"); err == nil || !strings.Contains(err.Error(), "bridge.cluster.quorum: unknown key") {
		t.Errorf("an unknown key in bridge.cluster: %v, want it refused", err)
	}
	if got := (Bridge{Deployment: DeploymentStandalone}).RolloutMode(); got != "" {
		t.Errorf("standalone rollout mode %q, want none", got)
	}
}

func TestRolloutSchema(t *testing.T) {
	out, err := Schema(nil)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Properties struct {
			Bridge struct {
				Properties struct {
					Cluster struct {
						Properties           map[string]map[string]any `json:"properties"`
						AdditionalProperties bool                      `json:"additionalProperties"`
					} `json:"cluster"`
				} `json:"properties"`
			} `json:"bridge"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	c := doc.Properties.Bridge.Properties.Cluster
	want := map[string]map[string]any{
		"rollout":      {"type": "string", "enum": []any{"refuse", "independent", "coordinated"}},
		"members":      {"type": "array", "items": map[string]any{"type": "string"}},
		"vote_timeout": {"type": "string", "pattern": durationPattern},
	}
	if diff := cmp.Diff(want, c.Properties); diff != "" || c.AdditionalProperties {
		t.Errorf("bridge.cluster schema (-want +got):\n%s additionalProperties %v", diff, c.AdditionalProperties)
	}
}

func TestRolloutHash(t *testing.T) {
	const doc = `
bridge: {id: b, deployment: clustered, instance_id: "${env:ME}"}
receivers: [{id: in, type: memory, settings: {client_id: "${env:CLIENT}"}}]
senders: [{id: out, type: memory}]
bindings: [{id: b1, sender_id: out, address: a1}]
routes: [{id: r0, receiver_id: in, bindings: [b1]}]
`
	hash := func(yaml string, env ...string) string {
		t.Helper()
		f, err := Parse([]byte(yaml), WithEnv(env))
		if err != nil {
			t.Fatal(err)
		}
		h, err := f.RolloutHash()
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	a := hash(doc, "ME=a", "CLIENT=x")
	if b := hash(doc, "ME=b", "CLIENT=y"); a != b {
		t.Errorf("members with their own instance_id and references hash differently: %s, %s", a, b)
	}
	if c := hash(strings.Replace(doc, "address: a1", "address: a2", 1), "ME=a", "CLIENT=x"); a == c {
		t.Error("a changed binding hashes the same")
	}
	if len(a) != 64 {
		t.Errorf("hash %q is not hex SHA-256", a)
	}
}

func TestLiveBlockers(t *testing.T) {
	off := false
	withExclusive := func(f *File) {
		f.Sessions[0].Settings = map[string]any{"client_id": "c1"}
		withSession(f, func(s *RouteSession) {})
	}
	for _, tc := range []struct {
		name       string
		before     func(f *File)
		after      func(f *File)
		wantPaths  []string
		wantReason string
	}{
		{"a route change", nil, func(f *File) { f.Bindings[0].Address = "elsewhere" }, nil, ""},
		{"the http block", nil, func(f *File) { f.HTTP.AdminAddr = ":9" }, nil, ""},
		{"a store", nil, func(f *File) { f.Stores.DLQ = nil }, []string{"stores.dlq"}, "store identity"},
		{"the deployment", nil, func(f *File) { f.Bridge.Deployment = DeploymentStandalone }, []string{"bridge.deployment"}, "deployment shape"},
		{"the rollout mode", nil, func(f *File) { f.Bridge.Cluster = &Cluster{Rollout: RolloutIndependent} },
			[]string{"bridge.cluster"}, "deployment shape"},
		{"the instance id", nil, func(f *File) { f.Bridge.InstanceID = "z" }, []string{"bridge.instance_id"}, "exclusive-session identity"},
		{"a session block added", nil, withExclusive, []string{"routes[0].session"}, "exclusive-session identity"},
		{"the session's client id", withExclusive, func(f *File) { f.Sessions[0].Settings["client_id"] = "c2" },
			[]string{"sessions[0].settings.client_id"}, "exclusive-session identity"},
		{"connect_after_lease", withExclusive, func(f *File) { f.Routes[0].Session.ConnectAfterLease = &off },
			[]string{"routes[0].session.connect_after_lease"}, "exclusive-session identity"},
		{"the lease cadence", withExclusive, func(f *File) { f.Routes[0].Session.LeaseTTL = time.Minute }, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := clustered(t, nil)
			if tc.before != nil {
				tc.before(old)
			}
			nf := clustered(t, nil)
			if tc.before != nil {
				tc.before(nf)
			}
			tc.after(nf)
			var paths []string
			for _, w := range LiveBlockers(old, nf) {
				paths = append(paths, w.Path)
				if !strings.HasPrefix(w.Message, tc.wantReason) {
					t.Errorf("%s: %q does not name %q", w.Path, w.Message, tc.wantReason)
				}
			}
			if diff := cmp.Diff(tc.wantPaths, paths); diff != "" {
				t.Errorf("blockers (-want +got):\n%s", diff)
			}
		})
	}
}
