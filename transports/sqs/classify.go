package sqs

import (
	"context"
	"errors"
	"net"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/smithy-go"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// throttleRetryAfter is the pause a throttled call suggests to the route.
const throttleRetryAfter = time.Second

// classify maps an SDK error to a fault class and code. op names the call.
func classify(op string, err error) error {
	if err == nil {
		return nil
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return fault.ErrTimeout.WithMessage("sqs: " + op + " timed out").Wrap(err)
	case errors.Is(err, context.Canceled):
		return fault.ErrUnavailable.WithMessage("sqs: " + op + " cancelled").Wrap(err)
	}
	var api smithy.APIError
	if errors.As(err, &api) {
		return classifyCode(op, api.ErrorCode(), api.ErrorFault(), err)
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return fault.ErrConnectionLost.WithMessage("sqs: " + op + ": network").Wrap(err)
	}
	var mre *retry.MaxAttemptsError
	if errors.As(err, &mre) {
		return fault.ErrUnavailable.WithMessage("sqs: " + op + ": retries exhausted").Wrap(err)
	}
	return fault.ErrUnavailable.WithMessage("sqs: " + op).Wrap(err)
}

// classifyCode maps an SQS error code (from a call or a batch entry).
// senderFault tells server-side failures, which are transient, apart.
func classifyCode(op, code string, f smithy.ErrorFault, err error) error {
	msg := "sqs: " + op + ": " + code
	switch code {
	case "RequestThrottled", "ThrottlingException", "Throttling", "OverLimit",
		"KmsThrottled", "KMS.ThrottlingException":
		return fault.ErrThrottled.WithMessage(msg).WithRetryAfter(throttleRetryAfter).Wrap(err)
	case "QueueDoesNotExist", "AWS.SimpleQueueService.NonExistentQueue", "NonExistentQueue":
		return fault.ErrNotFound.WithMessage(msg).Wrap(err)
	case "AccessDenied", "AccessDeniedException", "KmsAccessDenied", "KMS.AccessDeniedException",
		"InvalidSecurity", "InvalidClientTokenId", "UnrecognizedClientException",
		"SignatureDoesNotMatch", "MissingAuthenticationToken":
		return fault.ErrForbidden.WithMessage(msg).Wrap(err)
	case "ExpiredToken", "ExpiredTokenException", "RequestExpired":
		return fault.ErrTemporaryAuthFailure.WithMessage(msg).Wrap(err)
	case "InvalidMessageContents", "InvalidParameterValue", "MessageTooLong",
		"BatchRequestTooLong", "InvalidAttributeName", "InvalidAttributeValue":
		return fault.ErrInvalidPayload.WithMessage(msg).Wrap(err)
	case "UnsupportedOperation", "InvalidAction", "UnknownOperationException":
		return fault.ErrNotSupported.WithMessage(msg).Wrap(err)
	case "ServiceUnavailable", "InternalError", "InternalFailure", "KmsUnavailable":
		return fault.ErrUnavailable.WithMessage(msg).Wrap(err)
	}
	if f == smithy.FaultServer {
		return fault.ErrUnavailable.WithMessage(msg).Wrap(err)
	}
	return fault.ErrProtocolError.WithMessage(msg).Wrap(err)
}
