package servicebus

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus"
	amqp "github.com/Azure/go-amqp"

	"github.com/gobridge-oss/gobridge/core/fault"
)

func TestClassify(t *testing.T) {
	cond := func(c string) error { return &amqp.Error{Condition: amqp.ErrCond(c), Description: "d"} }
	code := func(c azservicebus.Code) error { return &azservicebus.Error{Code: c} }
	tests := []struct {
		err        error
		class      fault.Class
		code       fault.Code
		retryAfter time.Duration
	}{
		{cond("com.microsoft:server-busy"), fault.ClassTransient, fault.CodeBrokerBusy, serverBusyRetryAfter},
		{fmt.Errorf("wrapped: %w", cond("com.microsoft:server-busy")), fault.ClassTransient, fault.CodeBrokerBusy, serverBusyRetryAfter},
		{cond("amqp:resource-limit-exceeded"), fault.ClassTransient, fault.CodeThrottled, quotaRetryAfter},
		{cond("amqp:not-found"), fault.ClassPermanent, fault.CodeNotFound, 0},
		{cond("com.microsoft:entity-disabled"), fault.ClassPermanent, fault.CodeNotFound, 0},
		{cond("amqp:unauthorized-access"), fault.ClassPermanent, fault.CodeNotAuthorized, 0},
		{cond("amqp:link:message-size-exceeded"), fault.ClassRejected, fault.CodePayloadTooLarge, 0},
		{cond("com.microsoft:message-lock-lost"), fault.ClassTransient, fault.CodeUnavailable, 0},
		{cond("com.microsoft:timeout"), fault.ClassTransient, fault.CodeTimeout, 0},
		{code(azservicebus.CodeNotFound), fault.ClassPermanent, fault.CodeNotFound, 0},
		{code(azservicebus.CodeUnauthorizedAccess), fault.ClassPermanent, fault.CodeNotAuthorized, 0},
		{code(azservicebus.CodeLockLost), fault.ClassTransient, fault.CodeUnavailable, 0},
		{code(azservicebus.CodeConnectionLost), fault.ClassTransient, fault.CodeConnectionLost, 0},
		{code(azservicebus.CodeTimeout), fault.ClassTransient, fault.CodeTimeout, 0},
		{code(azservicebus.CodeClosed), fault.ClassTransient, fault.CodeUnavailable, 0},
		{azservicebus.ErrMessageTooLarge, fault.ClassRejected, fault.CodePayloadTooLarge, 0},
		{context.DeadlineExceeded, fault.ClassTransient, fault.CodeTimeout, 0},
		{context.Canceled, fault.ClassTransient, fault.CodeUnavailable, 0},
		{&amqp.ConnError{}, fault.ClassTransient, fault.CodeConnectionLost, 0},
		{errors.New("something else"), fault.ClassTransient, fault.CodeUnavailable, 0},
	}
	for _, tt := range tests {
		t.Run(tt.err.Error(), func(t *testing.T) {
			got := classify("op", tt.err)
			if fault.ClassOf(got) != tt.class || fault.CodeOf(got) != tt.code || fault.RetryAfter(got) != tt.retryAfter {
				t.Errorf("classify(%v) = %v: class %v code %s retry-after %v; want %v %s %v", tt.err, got,
					fault.ClassOf(got), fault.CodeOf(got), fault.RetryAfter(got), tt.class, tt.code, tt.retryAfter)
			}
			if !errors.Is(got, tt.err) {
				t.Error("the SDK error is not wrapped")
			}
		})
	}
	if classify("op", nil) != nil {
		t.Error("classify(nil) != nil")
	}
	if !lockLost(code(azservicebus.CodeLockLost)) || !lockLost(classify("x", cond("com.microsoft:session-lock-lost"))) || lockLost(code(azservicebus.CodeTimeout)) {
		t.Error("lockLost misreads")
	}
}
