package tenant

import "github.com/gobridge-oss/gobridge/core/telemetry"

// Reasons recorded on gobridge_tenant_rejects_total.
const (
	// ReasonMissingRequired: no tenant ID while RequireTenant is set.
	ReasonMissingRequired = "missing_required"
	// ReasonMalformed: the header holds something that cannot be an ID.
	ReasonMalformed = "malformed"
	// ReasonInactive: the validator reported the tenant inactive.
	ReasonInactive = "inactive"
	// ReasonPayloadTooLarge: the payload exceeds the tenant's size cap.
	ReasonPayloadTooLarge = "payload_too_large"
	// ReasonValidatorError: the validator could not answer.
	ReasonValidatorError = "validator_error"
	// ReasonQuotaInFlight: the tenant is at its in-flight ceiling.
	ReasonQuotaInFlight = "quota_inflight"
)

// Tracker operations recorded on gobridge_tenant_usage_errors_total.
const (
	opRead      = "read"
	opIncrement = "increment"
	opDecrement = "decrement"
	opProcessed = "processed"
)

// instruments are the processor's counters, bound once in New. Tenant IDs
// are never a label: they are unbounded.
type instruments struct {
	missing, malformed, inactive, tooLarge, validator, quota telemetry.Counter
	readErr, incErr, decErr, procErr                         telemetry.Counter
	untenanted                                               telemetry.Counter
}

func newInstruments(m telemetry.Meter, processor string) *instruments {
	rejects := telemetry.Desc{
		Name:   "gobridge_tenant_rejects_total",
		Help:   "Messages the tenant processor refused, by reason.",
		Labels: []string{"processor", "reason"},
	}
	usage := telemetry.Desc{
		Name:   "gobridge_tenant_usage_errors_total",
		Help:   "Usage tracker calls that failed and were skipped (fail open), by operation.",
		Labels: []string{"processor", "op"},
	}
	untenanted := telemetry.Desc{
		Name:   "gobridge_tenant_untenanted_total",
		Help:   "Messages without a tenant ID let through because RequireTenant is off.",
		Labels: []string{"processor"},
	}
	return &instruments{
		missing:    m.Counter(rejects, processor, ReasonMissingRequired),
		malformed:  m.Counter(rejects, processor, ReasonMalformed),
		inactive:   m.Counter(rejects, processor, ReasonInactive),
		tooLarge:   m.Counter(rejects, processor, ReasonPayloadTooLarge),
		validator:  m.Counter(rejects, processor, ReasonValidatorError),
		quota:      m.Counter(rejects, processor, ReasonQuotaInFlight),
		readErr:    m.Counter(usage, processor, opRead),
		incErr:     m.Counter(usage, processor, opIncrement),
		decErr:     m.Counter(usage, processor, opDecrement),
		procErr:    m.Counter(usage, processor, opProcessed),
		untenanted: m.Counter(untenanted, processor),
	}
}

func (in *instruments) rejected(reason string) {
	switch reason {
	case ReasonMissingRequired:
		in.missing.Add(1)
	case ReasonMalformed:
		in.malformed.Add(1)
	case ReasonInactive:
		in.inactive.Add(1)
	case ReasonPayloadTooLarge:
		in.tooLarge.Add(1)
	case ReasonValidatorError:
		in.validator.Add(1)
	case ReasonQuotaInFlight:
		in.quota.Add(1)
	}
}

func (in *instruments) usageFailed(op string) {
	switch op {
	case opRead:
		in.readErr.Add(1)
	case opIncrement:
		in.incErr.Add(1)
	case opDecrement:
		in.decErr.Add(1)
	case opProcessed:
		in.procErr.Add(1)
	}
}
