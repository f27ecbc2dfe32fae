package config

import (
	"github.com/gobridge-oss/gobridge/core/runtime"
)

// Telemetry defaults.
const (
	DefaultLogLevel  = "info"
	DefaultLogFormat = "text"
)

// applyDefaults fills every field left unset with its default. Fields
// documented as derived (renew_interval, lease_renew_jitter,
// renew_call_timeout, acquire_poll_interval) stay zero: Cadence computes
// them, and validation tells a pinned value from a derived one by it.
func (f *File) applyDefaults(o *options) {
	b := &f.Bridge
	if b.Deployment == "" {
		b.Deployment = DeploymentStandalone
	}
	if b.InstanceID == "" {
		if h, err := o.hostname(); err == nil {
			b.InstanceID = h
		}
	}
	if b.ShutdownTimeout == 0 {
		b.ShutdownTimeout = DefaultShutdownTimeout
	}
	b.Cluster.applyDefaults()
	for i := range f.Routes {
		f.Routes[i].applyDefaults()
	}
	if h := f.HTTP; h != nil {
		if h.AdminAddr == "" {
			h.AdminAddr = DefaultAdminAddr
		}
		if h.MonitorAddr == "" {
			h.MonitorAddr = DefaultMonitorAddr
		}
	}
	t := &f.Telemetry
	if t.LogLevel == "" {
		t.LogLevel = DefaultLogLevel
	}
	if t.LogFormat == "" {
		t.LogFormat = DefaultLogFormat
	}
	if t.Metrics == nil {
		t.Metrics = ptr(true)
	}
}

func (r *Route) applyDefaults() {
	if r.DeliveryMode == "" {
		r.DeliveryMode = DeliveryDirectHold
	}
	if r.DispatchMode == "" {
		r.DispatchMode = DispatchSingle
	}
	p := &r.Policy
	if p.AckAfter == "" {
		p.AckAfter = AckTargetAccept
		if r.DeliveryMode == DeliverySharedOutbox {
			p.AckAfter = AckOutboxPersist
		}
	}
	p.MaxInFlight = orDefault(p.MaxInFlight, runtime.DefaultMaxInFlight)
	p.MaxReplayAttempts = orDefault(p.MaxReplayAttempts, runtime.DefaultMaxReplayAttempts)
	p.ReplayBudget = orDefault(p.ReplayBudget, runtime.DefaultReplayBudget)
	p.MaxOutboxDepth = orDefault(p.MaxOutboxDepth, runtime.DefaultMaxOutboxDepth)
	p.OnExpired = orDefault(p.OnExpired, ActionDLQ)
	p.OnPermanentFailure = orDefault(p.OnPermanentFailure, ActionDLQ)
	p.OnFiltered = orDefault(p.OnFiltered, ActionDrop)
	p.SendTimeout = orDefault(p.SendTimeout, runtime.DefaultSendTimeout)
	p.DepthCacheTTL = orDefault(p.DepthCacheTTL, runtime.DefaultDepthCacheTTL)
	bo := &p.Backoff
	bo.InitialInterval = orDefault(bo.InitialInterval, runtime.DefaultInitialInterval)
	bo.MaxInterval = orDefault(bo.MaxInterval, runtime.DefaultMaxInterval)
	bo.Multiplier = orDefault(bo.Multiplier, runtime.DefaultMultiplier)
	if bo.Jitter == nil {
		bo.Jitter = ptr(runtime.DefaultJitter)
	}
	if s := r.Session; s != nil {
		s.LeaseTTL = orDefault(s.LeaseTTL, DefaultLeaseTTL)
		s.MaxRenewFails = orDefault(s.MaxRenewFails, DefaultMaxRenewFails)
		s.StepDownGrace = orDefault(s.StepDownGrace, DefaultStepDownGrace)
		s.DrainBatchSize = orDefault(s.DrainBatchSize, runtime.DefaultDrainBatchSize)
		s.DrainMaxBatchSize = orDefault(s.DrainMaxBatchSize, max(runtime.DefaultDrainMaxBatchSize, s.DrainBatchSize))
		s.DrainMaxConcurrency = orDefault(s.DrainMaxConcurrency, runtime.DefaultDrainMaxConcurrency)
		if s.ConnectAfterLease == nil {
			s.ConnectAfterLease = ptr(true)
		}
	}
}

// orDefault returns def when v is the zero value.
func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

func ptr[T any](v T) *T { return &v }
