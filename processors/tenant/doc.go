// Package tenant is a gobridge processor that reads a tenant ID from a
// message header, optionally checks it with an embedder-supplied
// TenantValidator, and optionally counts per-tenant usage with a
// TenantUsageTracker, enforcing a ceiling on in-flight deliveries when the
// tracker can also report usage (TenantUsageReader).
//
// The header is supplied by whoever produced the message and is not
// authenticated here: without a validator that checks it against something
// trustworthy, any producer can claim any tenant.
//
// The tenant ports (TenantInfo, TenantValidator, TenantUsageTracker,
// TenantUsageReader, TenantUsageReconciler) are defined in this package for
// now; they are meant to move to core/ports.
package tenant
