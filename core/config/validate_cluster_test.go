package config

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestClusteredValidation(t *testing.T) {
	off := false
	for _, tc := range []struct {
		name string
		mut  func(f *File)
		want []string // problem paths
	}{
		{"shared_outbox without a lease store", func(f *File) {
			f.Stores.Lease = nil
			f.Routes[0].DeliveryMode, f.Routes[0].Policy.AckAfter = DeliverySharedOutbox, ""
		}, []string{"routes[0].delivery_mode"}},
		{"shared_outbox with a lease store", func(f *File) {
			f.Routes[0].DeliveryMode, f.Routes[0].Policy.AckAfter = DeliverySharedOutbox, ""
		}, nil},
		{"two routes on one session with one timing", func(f *File) {
			withSession(f, func(s *RouteSession) { s.ConnectAfterLease = &off })
			second := f.Routes[0]
			second.ID = "r1"
			f.Routes = append(f.Routes, second)
		}, nil},
		{"two routes on one session with different timings", func(f *File) {
			withSession(f, func(s *RouteSession) { s.ConnectAfterLease = &off })
			second := f.Routes[0]
			s := *second.Session
			s.LeaseTTL = 10 * time.Second
			second.ID, second.Session = "r1", &s
			f.Routes = append(f.Routes, second)
		}, []string{"routes[1].session"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := base(t)
			f.Bridge.Deployment = DeploymentClustered
			tc.mut(f)
			_, err := f.Validate()
			var got []string
			if ps, ok := err.(*Problems); ok {
				for _, p := range *ps {
					got = append(got, p.Path)
				}
			} else if err != nil {
				t.Fatalf("Validate() = %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s (%v)", diff, err)
			}
		})
	}
}
