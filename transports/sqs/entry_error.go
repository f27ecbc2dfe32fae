package sqs

import "github.com/aws/smithy-go"

// entryError is the failure of one entry of a batch call.
type entryError struct{ code, msg string }

func (e entryError) Error() string { return e.code + ": " + e.msg }

// smithyFault turns a batch entry's SenderFault flag into the fault kind
// classifyCode expects: an entry that is not the sender's fault is the
// server's, and so transient.
func smithyFault(sender bool) smithy.ErrorFault {
	if sender {
		return smithy.FaultClient
	}
	return smithy.FaultServer
}
