package config

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestClusteringKeysNotBuiltYetAreRefused: the keys of the clustering
// features that do not run yet validate under their own rules, but a
// plain Validate refuses each, naming the key.
func TestClusteringKeysNotBuiltYetAreRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		mut  func(f *File)
		want []string
	}{
		{"allow_unfenced", func(f *File) { f.Routes[0].Policy.AllowUnfenced = true }, []string{"routes[0].policy.allow_unfenced"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := base(t) // carries a lease store
			tc.mut(f)
			_, err := f.Validate()
			var ps Problems
			if !errors.As(err, &ps) {
				t.Fatalf("Validate() = %v, want Problems", err)
			}
			var got []string
			for _, p := range ps {
				got = append(got, p.Path)
				if !strings.Contains(p.Message, "not supported yet") {
					t.Errorf("%s: %q does not say it is not supported yet", p.Path, p.Message)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("refused keys (-want +got):\n%s", diff)
			}
		})
	}
}

// TestClusteringKeysThatRunAreAccepted: a clustered deployment with a
// lease store and route session blocks validates, connect_after_lease
// included for a source that is not MQTT.
func TestClusteringKeysThatRunAreAccepted(t *testing.T) {
	t.Run("connect_after_lease", func(t *testing.T) {
		f := base(t)
		f.Bridge.Deployment = DeploymentClustered
		withSession(f, func(s *RouteSession) { s.ConnectAfterLease = ptr(true) })
		if _, err := f.Validate(); err != nil {
			t.Fatalf("Validate() = %v", err)
		}
	})
	t.Run("managed subscriptions store", func(t *testing.T) {
		f := base(t)
		f.Stores.ManagedSubscriptions = &Store{Type: "x"}
		if _, err := f.Validate(); err != nil {
			t.Fatalf("Validate() = %v", err)
		}
	})
	t.Run("broker_health_step_down duration", func(t *testing.T) {
		f := base(t)
		f.Bridge.Deployment = DeploymentClustered
		withSession(f, func(s *RouteSession) { s.BrokerHealthStepDown = &OffDuration{Duration: 30 * time.Second} })
		if _, err := f.Validate(); err != nil {
			t.Fatalf("Validate() = %v", err)
		}
	})
	off := false
	slo := 10 * time.Second
	f := base(t)
	f.Bridge.Deployment = DeploymentClustered
	withSession(f, func(s *RouteSession) {
		s.ConnectAfterLease = &off
		s.LeaseTTL = 5 * time.Second
		s.BrokerHealthStepDown = &OffDuration{Off: true}
		s.FailoverSLO = ptr(slo)
	})
	if _, err := f.Validate(); err != nil {
		t.Fatalf("Validate() = %v", err)
	}
}
