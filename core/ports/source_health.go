package ports

// SourceHealth is a receiver's view of its path to the broker it consumes
// from.
type SourceHealth struct {
	// Converged is true while the receiver is connected and consuming, or
	// subscribed to, everything it was configured for.
	Converged bool
	// Detail is a short, secret-free explanation, mostly of why the path
	// is not converged.
	Detail string
}

// SourceHealthReporter is implemented by receivers that can tell, without
// blocking on the network, whether their path to the broker is converged.
// A route session's broker-health step-down relies on it: an owner whose
// source stays unconverged too long gives its lease up to a standby.
type SourceHealthReporter interface {
	SourceHealth() SourceHealth
}
