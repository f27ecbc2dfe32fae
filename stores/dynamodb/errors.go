package dynamodb

import (
	"context"
	"errors"
	"net"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// throttleRetryAfter is the pause a throttled call suggests to its caller
// once the SDK's own backoff gave up.
const throttleRetryAfter = time.Second

// isConditionFailed reports whether err is a failed condition of a single
// write.
func isConditionFailed(err error) bool {
	var ccf *types.ConditionalCheckFailedException
	return errors.As(err, &ccf)
}

// cancelReasons returns the per-action codes of a cancelled transaction,
// or nil when err is something else.
func cancelReasons(err error) []string {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		return nil
	}
	out := make([]string, len(tce.CancellationReasons))
	for i, r := range tce.CancellationReasons {
		if r.Code != nil {
			out[i] = *r.Code
		}
	}
	return out
}

// classify maps an SDK error to a fault class and code; op names the
// call. Conditional-check failures reach it only where the caller has no
// meaning of its own for them.
func classify(op string, err error) error {
	if err == nil {
		return nil
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return fault.ErrTimeout.WithMessage("dynamodb store: " + op + " timed out").Wrap(err)
	case errors.Is(err, context.Canceled):
		return fault.ErrUnavailable.WithMessage("dynamodb store: " + op + " cancelled").Wrap(err)
	}
	if reasons := cancelReasons(err); reasons != nil {
		for _, r := range reasons {
			switch r {
			case "ThrottlingError", "ProvisionedThroughputExceeded", "RequestLimitExceeded":
				return fault.ErrThrottled.WithMessage("dynamodb store: " + op + ": transaction throttled").
					WithRetryAfter(throttleRetryAfter).Wrap(err)
			case "TransactionConflict":
				return fault.ErrUnavailable.WithMessage("dynamodb store: " + op + ": transaction conflict").Wrap(err)
			case "ValidationError":
				return fault.ErrInvalidPayload.WithMessage("dynamodb store: " + op + ": " + strings.Join(reasons, ",")).Wrap(err)
			}
		}
		return fault.ErrVersionMismatch.WithMessage("dynamodb store: " + op + ": transaction cancelled: " + strings.Join(reasons, ",")).Wrap(err)
	}
	var api smithy.APIError
	if errors.As(err, &api) {
		return classifyCode(op, api, err)
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return fault.ErrConnectionLost.WithMessage("dynamodb store: " + op + ": network").Wrap(err)
	}
	var mre *retry.MaxAttemptsError
	if errors.As(err, &mre) {
		return fault.ErrUnavailable.WithMessage("dynamodb store: " + op + ": retries exhausted").Wrap(err)
	}
	return fault.ErrUnavailable.WithMessage("dynamodb store: " + op).Wrap(err)
}

// classifyCode maps a DynamoDB error code.
func classifyCode(op string, api smithy.APIError, err error) error {
	code := api.ErrorCode()
	msg := "dynamodb store: " + op + ": " + code
	switch code {
	case "ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded",
		"Throttling", "LimitExceededException":
		return fault.ErrThrottled.WithMessage(msg).WithRetryAfter(throttleRetryAfter).Wrap(err)
	case "ConditionalCheckFailedException":
		return fault.ErrVersionMismatch.WithMessage(msg).Wrap(err)
	case "TransactionConflictException", "TransactionInProgressException":
		return fault.ErrUnavailable.WithMessage(msg).Wrap(err)
	case "ResourceNotFoundException":
		return fault.ErrInvalidConfig.WithMessage(msg + " (a table is missing; see create_tables)").Wrap(err)
	case "AccessDeniedException", "UnrecognizedClientException", "InvalidSignatureException",
		"MissingAuthenticationTokenException", "IncompleteSignature":
		return fault.ErrForbidden.WithMessage(msg).Wrap(err)
	case "ExpiredTokenException", "RequestExpired":
		return fault.ErrTemporaryAuthFailure.WithMessage(msg).Wrap(err)
	case "ItemCollectionSizeLimitExceededException":
		return fault.ErrPayloadTooLarge.WithMessage(msg).Wrap(err)
	case "ValidationException", "SerializationException":
		if strings.Contains(strings.ToLower(api.ErrorMessage()), "size") {
			return fault.ErrPayloadTooLarge.WithMessage(msg + ": " + clip(api.ErrorMessage())).Wrap(err)
		}
		return fault.ErrInvalidPayload.WithMessage(msg + ": " + clip(api.ErrorMessage())).Wrap(err)
	case "UnknownOperationException":
		return fault.ErrNotSupported.WithMessage(msg).Wrap(err)
	case "InternalServerError", "InternalFailure", "ServiceUnavailable", "ServiceUnavailableException":
		return fault.ErrUnavailable.WithMessage(msg).Wrap(err)
	}
	if api.ErrorFault() == smithy.FaultServer {
		return fault.ErrUnavailable.WithMessage(msg).Wrap(err)
	}
	return fault.ErrProtocolError.WithMessage(msg).Wrap(err)
}

// clip shortens s for an error message.
func clip(s string) string {
	const max = 120
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}
