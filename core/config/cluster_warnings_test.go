package config

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// warningsAt validates f with the clustering keys accepted and returns
// the warnings whose path ends in suffix; any problem fails the test.
func warningsAt(t *testing.T, f *File, suffix string) []Warning {
	t.Helper()
	warns, err := f.ValidateWith(preview)
	if err != nil {
		t.Fatalf("Validate() = %v", err)
	}
	var got []Warning
	for _, w := range warns {
		if strings.HasSuffix(w.Path, suffix) {
			got = append(got, w)
		}
	}
	return got
}

func TestClusteredStaleClaimWarning(t *testing.T) {
	off := false
	const msg = "%s is longer than the outbox's stale_claim_age %s: a batch still in hand during the step-down grace can be claimed again as stale and delivered twice; raise stores.outbox.settings.stale_claim_age to at least %s or lower step_down_grace"
	warn := func(route, grace, age string) Warning {
		return Warning{"routes[" + route + "].session.step_down_grace", fmt.Sprintf(msg, grace, age, grace)}
	}
	for _, tc := range []struct {
		name       string
		deployment string
		settings   map[string]any // stores.outbox.settings
		grace      time.Duration  // routes[0].session.step_down_grace
		noOutbox   bool
		want       []Warning
	}{
		{"default age and default grace", DeploymentClustered, nil, 0, false, nil},
		{"age shorter than the default grace", DeploymentClustered, map[string]any{"stale_claim_age": "3s"}, 0, false, []Warning{warn("0", "15s", "3s")}},
		{"age shorter than a set grace", DeploymentClustered, map[string]any{"stale_claim_age": "10s"}, 12 * time.Second, false, []Warning{warn("0", "12s", "10s")}},
		{"age equal to the grace", DeploymentClustered, map[string]any{"stale_claim_age": "15s"}, 0, false, nil},
		{"default age shorter than a long grace", DeploymentClustered, nil, time.Minute, false, []Warning{warn("0", "1m0s", "30s")}},
		{"zero age is the store default", DeploymentClustered, map[string]any{"stale_claim_age": "0s"}, 0, false, nil},
		{"age as a duration value", DeploymentClustered, map[string]any{"stale_claim_age": 2 * time.Second}, 0, false, []Warning{warn("0", "15s", "2s")}},
		{"unparsable age left to the plugin", DeploymentClustered, map[string]any{"stale_claim_age": "soon"}, 0, false, nil},
		{"negative age left to the plugin", DeploymentClustered, map[string]any{"stale_claim_age": "-1s"}, 0, false, nil},
		{"no outbox store", DeploymentClustered, nil, time.Minute, true, nil},
		{"standalone is not checked", DeploymentStandalone, map[string]any{"stale_claim_age": "3s"}, 0, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := base(t)
			f.Bridge.Deployment, f.Bridge.InstanceID = tc.deployment, "node-a"
			f.Stores.Outbox.Settings = tc.settings
			if tc.noOutbox {
				f.Stores.Outbox = nil
			}
			withSession(f, func(s *RouteSession) { s.ConnectAfterLease, s.StepDownGrace = &off, tc.grace })
			if diff := cmp.Diff(tc.want, warningsAt(t, f, "step_down_grace")); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestClusteredStaleClaimWarningPerRoute(t *testing.T) {
	off := false
	f := base(t)
	f.Bridge.Deployment, f.Bridge.InstanceID = DeploymentClustered, "node-a"
	f.Stores.Outbox.Settings = map[string]any{"stale_claim_age": "20s"}
	second := f.Routes[0]
	second.ID = "r1"
	f.Routes = append(f.Routes, second) // no session: not checked
	withSession(f, func(s *RouteSession) { s.ConnectAfterLease, s.StepDownGrace = &off, 25*time.Second })
	got := warningsAt(t, f, "step_down_grace")
	if len(got) != 1 || got[0].Path != "routes[0].session.step_down_grace" {
		t.Fatalf("warnings = %v, want one on routes[0].session.step_down_grace", got)
	}
}

func TestClusteredInstanceIDWarning(t *testing.T) {
	const fix = "set it per instance, for example instance_id: ${env:INSTANCE_ID} or the variable GOBRIDGE_BRIDGE__INSTANCE_ID"
	host := func(name string, err error) func() (string, error) {
		return func() (string, error) { return name, err }
	}
	for _, tc := range []struct {
		name     string
		id       string
		hostname func() (string, error)
		want     []Warning
	}{
		{"empty", "", host("vm", nil), []Warning{{"bridge.instance_id",
			"is empty, so it defaults to the host name: instances of a clustered deployment on one host would share one lease owner identity; " + fix}}},
		{"the host name", "vm", host("vm", nil), []Warning{{"bridge.instance_id",
			`is the host name "vm" (the default): instances of a clustered deployment on one host would share one lease owner identity; ` + fix + " (fine if each instance runs on its own host)"}}},
		{"set per instance", "node-a", host("vm", nil), nil},
		{"host name unreadable", "node-a", host("", errors.New("no name")), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := base(t)
			f.Bridge.Deployment, f.Bridge.InstanceID = DeploymentClustered, tc.id
			v := &validator{f: f, probs: &problems{}}
			v.clusteredInstance(tc.hostname)
			if diff := cmp.Diff(tc.want, v.warns); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			if v.probs.err() != nil {
				t.Errorf("problems: %v", v.probs.err())
			}
		})
	}
}

// TestClusteredInstanceIDDefault goes through Parse and Validate: the
// default instance_id (this host's name) is warned about on a clustered
// deployment only, and an instance_id set through the documented
// environment override is not.
func TestClusteredInstanceIDDefault(t *testing.T) {
	if _, err := os.Hostname(); err != nil {
		t.Skipf("no host name: %v", err)
	}
	for _, tc := range []struct {
		name       string
		deployment string
		env        []string
		want       int
	}{
		{"clustered with the default", DeploymentClustered, nil, 1},
		{"clustered with an override", DeploymentClustered, []string{"GOBRIDGE_BRIDGE__INSTANCE_ID=node-b"}, 0},
		{"standalone with the default", DeploymentStandalone, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Parse([]byte(baseYAML), WithEnv(tc.env))
			if err != nil {
				t.Fatal(err)
			}
			f.Bridge.Deployment = tc.deployment
			if got := warningsAt(t, f, "bridge.instance_id"); len(got) != tc.want {
				t.Errorf("instance_id warnings = %v, want %d", got, tc.want)
			}
		})
	}
}
