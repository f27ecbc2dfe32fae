package fault

// Sentinels for every code. Compare with errors.Is; derive annotated copies
// with Wrap, With, WithMessage or WithRetryAfter, which never modify the
// sentinel itself.
var (
	ErrTimeout              = New(CodeTimeout, "operation timed out")
	ErrConnectionLost       = New(CodeConnectionLost, "connection lost")
	ErrUnavailable          = New(CodeUnavailable, "temporarily unavailable")
	ErrThrottled            = New(CodeThrottled, "throttled")
	ErrBrokerBusy           = New(CodeBrokerBusy, "broker busy")
	ErrTemporaryAuthFailure = New(CodeTemporaryAuthFailure, "temporary authentication failure")
	ErrTenantQuotaExceeded  = New(CodeTenantQuotaExceeded, "tenant in-flight quota exceeded")
	ErrVersionMismatch      = New(CodeVersionMismatch, "version mismatch")
	ErrInternal             = New(CodeInternal, "internal error")

	ErrNotAuthorized     = New(CodeNotAuthorized, "not authorized")
	ErrForbidden         = New(CodeForbidden, "forbidden")
	ErrNotFound          = New(CodeNotFound, "not found")
	ErrInvalidConfig     = New(CodeInvalidConfig, "invalid configuration")
	ErrProtocolError     = New(CodeProtocolError, "protocol error")
	ErrQoSNotSupported   = New(CodeQoSNotSupported, "quality of service not supported")
	ErrNotSupported      = New(CodeNotSupported, "operation not supported")
	ErrAlreadyExists     = New(CodeAlreadyExists, "already exists")
	ErrStaleFencingToken = New(CodeStaleFencingToken, "stale fencing token")
	ErrDuplicateRecord   = New(CodeDuplicateRecord, "duplicate record")
	ErrPoisonMessage     = New(CodePoisonMessage, "retry budget exhausted")

	ErrInvalidPayload  = New(CodeInvalidPayload, "invalid payload")
	ErrPayloadTooLarge = New(CodePayloadTooLarge, "payload too large")
	ErrInvalidTopic    = New(CodeInvalidTopic, "invalid topic")
	ErrSchemaViolation = New(CodeSchemaViolation, "schema violation")
	// ErrMessageFiltered is returned by a processor that intentionally
	// discards a message. The route acks it and follows on_filtered.
	ErrMessageFiltered = New(CodeMessageFiltered, "message filtered")

	ErrMessageExpired = New(CodeMessageExpired, "message expired")
)
