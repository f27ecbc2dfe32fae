package config

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestFailoverBudgetMessages checks that a failover_slo problem spells
// out each term of the budget with its value and names the settings to
// change: those that add to the budget, and failover_slo.
func TestFailoverBudgetMessages(t *testing.T) {
	const path = "routes[0].session.failover_slo"
	for _, tc := range []struct {
		name string
		mut  func(s *RouteSession)
		want Problems // nil: no failover problem
	}{
		{"owner death with a startup allowance", func(s *RouteSession) {
			s.LeaseTTL, s.AcquirePollInterval, s.StartupAllowance = 20*time.Second, 2*time.Second, 10*time.Second
			s.FailoverSLO, s.BrokerHealthStepDown = ptr(30*time.Second), &OffDuration{Off: true}
		}, Problems{{path, "owner death can take lease_ttl (20s) + acquire_poll_interval (2s) + startup_allowance (10s) = 32s, more than failover_slo 30s: lower lease_ttl, acquire_poll_interval or startup_allowance, or raise failover_slo"}}},
		{"owner death at the boundary passes", func(s *RouteSession) {
			s.LeaseTTL, s.AcquirePollInterval, s.StartupAllowance = 20*time.Second, 2*time.Second, 8*time.Second
			s.FailoverSLO, s.BrokerHealthStepDown = ptr(30*time.Second), &OffDuration{Off: true}
		}, nil},
		{"broker outage only", func(s *RouteSession) {
			s.LeaseTTL, s.AcquirePollInterval, s.StepDownGrace = 20*time.Second, time.Second, 5*time.Second
			s.FailoverSLO, s.BrokerHealthStepDown = ptr(30*time.Second), &OffDuration{Duration: 25 * time.Second}
		}, Problems{{path, "a broker outage can take broker_health_step_down (25s) + step_down_grace (5s) + acquire_poll_interval (1s) + startup_allowance (0s) = 31s, more than failover_slo 30s: lower broker_health_step_down, step_down_grace or acquire_poll_interval, or raise failover_slo"}}},
		{"both budgets over", func(s *RouteSession) {
			s.LeaseTTL, s.AcquirePollInterval, s.StartupAllowance = 20*time.Second, time.Second, time.Second
			s.FailoverSLO, s.BrokerHealthStepDown = ptr(20*time.Second), &OffDuration{Duration: 10 * time.Second}
		}, Problems{
			{path, "owner death can take lease_ttl (20s) + acquire_poll_interval (1s) + startup_allowance (1s) = 22s, more than failover_slo 20s: lower lease_ttl, acquire_poll_interval or startup_allowance, or raise failover_slo"},
			{path, "a broker outage can take broker_health_step_down (10s) + step_down_grace (15s) + acquire_poll_interval (1s) + startup_allowance (1s) = 27s, more than failover_slo 20s: lower broker_health_step_down, step_down_grace, acquire_poll_interval or startup_allowance, or raise failover_slo"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := base(t)
			withSession(f, tc.mut)
			_, err := f.ValidateWith(preview)
			var got Problems
			if err != nil && !errors.As(err, &got) {
				t.Fatalf("Validate() = %v, want Problems", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBudgetRemedy(t *testing.T) {
	for _, tc := range []struct {
		name  string
		terms []budgetTerm
		want  string
	}{
		{"nothing to lower", []budgetTerm{{"startup_allowance", 0}}, "raise failover_slo"},
		{"one", []budgetTerm{{"lease_ttl", time.Second}, {"startup_allowance", 0}}, "lower lease_ttl, or raise failover_slo"},
		{"two", []budgetTerm{{"lease_ttl", time.Second}, {"acquire_poll_interval", time.Second}}, "lower lease_ttl or acquire_poll_interval, or raise failover_slo"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := budgetRemedy(tc.terms); got != tc.want {
				t.Errorf("budgetRemedy() = %q, want %q", got, tc.want)
			}
		})
	}
}
