package cluster

import "github.com/gobridge-oss/gobridge/core/telemetry"

var (
	descHeld       = telemetry.Desc{Name: "gobridge_lease_held", Help: "1 while this instance holds the lease, 0 otherwise.", Labels: []string{"lease"}}
	descVersion    = telemetry.Desc{Name: "gobridge_lease_token_version", Help: "Fencing token version of the lease this instance holds or last held.", Labels: []string{"lease"}}
	descAcquired   = telemetry.Desc{Name: "gobridge_lease_acquired_total", Help: "Times this instance won the lease.", Labels: []string{"lease"}}
	descRenewFails = telemetry.Desc{Name: "gobridge_lease_renew_failures_total", Help: "Lease renewals that failed.", Labels: []string{"lease"}}
	descStepDowns  = telemetry.Desc{Name: "gobridge_lease_step_downs_total", Help: "Times this instance stepped down from the lease, by reason (renew_failed, stale_token, requested, stop).", Labels: []string{"lease", "reason"}}
)

// metrics are one lease's instruments.
type metrics struct {
	held, version         telemetry.Gauge
	acquired, renewFailed telemetry.Counter
	stepDowns             map[string]telemetry.Counter
}

func newMetrics(m telemetry.Meter, key string) metrics {
	ms := metrics{
		held:        m.Gauge(descHeld, key),
		version:     m.Gauge(descVersion, key),
		acquired:    m.Counter(descAcquired, key),
		renewFailed: m.Counter(descRenewFails, key),
		stepDowns:   map[string]telemetry.Counter{},
	}
	for _, r := range []string{reasonRenewFailed, reasonStale, reasonStop, reasonRequested} {
		ms.stepDowns[r] = m.Counter(descStepDowns, key, r)
	}
	return ms
}
