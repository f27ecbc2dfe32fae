package fault

// Code is a stable, upper-case error identifier that operators can alert on
// and clients can match.
type Code string

// Transient codes.
const (
	CodeTimeout              Code = "TIMEOUT"
	CodeConnectionLost       Code = "CONNECTION_LOST"
	CodeUnavailable          Code = "UNAVAILABLE"
	CodeThrottled            Code = "THROTTLED"
	CodeBrokerBusy           Code = "BROKER_BUSY"
	CodeTemporaryAuthFailure Code = "TEMPORARY_AUTH_FAILURE"
	CodeTenantQuotaExceeded  Code = "TENANT_QUOTA_EXCEEDED"
	CodeVersionMismatch      Code = "VERSION_MISMATCH"
	CodeInternal             Code = "INTERNAL"
)

// Permanent codes.
const (
	CodeNotAuthorized     Code = "NOT_AUTHORIZED"
	CodeForbidden         Code = "FORBIDDEN"
	CodeNotFound          Code = "NOT_FOUND"
	CodeInvalidConfig     Code = "INVALID_CONFIG"
	CodeProtocolError     Code = "PROTOCOL_ERROR"
	CodeQoSNotSupported   Code = "QOS_NOT_SUPPORTED"
	CodeNotSupported      Code = "NOT_SUPPORTED"
	CodeAlreadyExists     Code = "ALREADY_EXISTS"
	CodeStaleFencingToken Code = "STALE_FENCING_TOKEN"
	CodeDuplicateRecord   Code = "DUPLICATE_RECORD"
	CodePoisonMessage     Code = "POISON_MESSAGE"
)

// Rejected codes.
const (
	CodeInvalidPayload  Code = "INVALID_PAYLOAD"
	CodePayloadTooLarge Code = "PAYLOAD_TOO_LARGE"
	CodeInvalidTopic    Code = "INVALID_TOPIC"
	CodeSchemaViolation Code = "SCHEMA_VIOLATION"
	CodeMessageFiltered Code = "MESSAGE_FILTERED"
)

// Expired codes.
const (
	CodeMessageExpired Code = "MESSAGE_EXPIRED"
)

// codeClass maps every known code to its class. It is read-only after
// package initialisation.
var codeClass = map[Code]Class{
	CodeTimeout:              ClassTransient,
	CodeConnectionLost:       ClassTransient,
	CodeUnavailable:          ClassTransient,
	CodeThrottled:            ClassTransient,
	CodeBrokerBusy:           ClassTransient,
	CodeTemporaryAuthFailure: ClassTransient,
	CodeTenantQuotaExceeded:  ClassTransient,
	CodeVersionMismatch:      ClassTransient,
	CodeInternal:             ClassTransient,

	CodeNotAuthorized:     ClassPermanent,
	CodeForbidden:         ClassPermanent,
	CodeNotFound:          ClassPermanent,
	CodeInvalidConfig:     ClassPermanent,
	CodeProtocolError:     ClassPermanent,
	CodeQoSNotSupported:   ClassPermanent,
	CodeNotSupported:      ClassPermanent,
	CodeAlreadyExists:     ClassPermanent,
	CodeStaleFencingToken: ClassPermanent,
	CodeDuplicateRecord:   ClassPermanent,
	CodePoisonMessage:     ClassPermanent,

	CodeInvalidPayload:  ClassRejected,
	CodePayloadTooLarge: ClassRejected,
	CodeInvalidTopic:    ClassRejected,
	CodeSchemaViolation: ClassRejected,
	CodeMessageFiltered: ClassRejected,

	CodeMessageExpired: ClassExpired,
}

// ClassOfCode returns the class a known code belongs to, and false for a
// code this package does not define.
func ClassOfCode(c Code) (Class, bool) {
	cl, ok := codeClass[c]
	return cl, ok
}

// Codes returns every code this package defines, in no particular order.
func Codes() []Code {
	out := make([]Code, 0, len(codeClass))
	for c := range codeClass {
		out = append(out, c)
	}
	return out
}
