package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestClusteringKeysAreRefusedUntilSupported: the keys of clustered
// deployment validate under their own rules but nothing acts on them yet,
// so a plain Validate refuses each, naming the key.
func TestClusteringKeysAreRefusedUntilSupported(t *testing.T) {
	for _, tc := range []struct {
		name string
		mut  func(f *File)
		want []string
	}{
		{"clustered deployment", func(f *File) { f.Bridge.Deployment = DeploymentClustered }, []string{"bridge.deployment", "stores.lease"}},
		{"lease store", func(*File) {}, []string{"stores.lease"}},
		{"managed subscriptions store", func(f *File) { f.Stores.ManagedSubscriptions = &Store{Type: "x"} }, []string{"stores.lease", "stores.managed_subscriptions"}},
		{"route session block", func(f *File) { f.Routes[0].Session = session() }, []string{"routes[0].session", "stores.lease"}},
		{"allow_unfenced", func(f *File) { f.Routes[0].Policy.AllowUnfenced = true }, []string{"routes[0].policy.allow_unfenced", "stores.lease"}},
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
