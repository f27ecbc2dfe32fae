package amqp10

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// TestSASLRefused: go-amqp reports a SASL outcome as text; an auth or
// sys-perm refusal becomes NOT_AUTHORIZED naming the configured
// mechanism, anything else is left to the connection classifier.
func TestSASLRefused(t *testing.T) {
	for _, tc := range []struct {
		err      error
		wantCode fault.Code
		wantMsg  string
	}{
		{errors.New("SASL PLAIN auth failed with code 0x1: "), fault.CodeOf(fault.ErrNotAuthorized),
			"amqp10: amqps://h:5671 refused SASL EXTERNAL (outcome code 0x1)"},
		{errors.New("SASL PLAIN auth failed with code 0x3: no"), fault.CodeOf(fault.ErrNotAuthorized),
			"amqp10: amqps://h:5671 refused SASL EXTERNAL (outcome code 0x3)"},
		{errors.New("SASL PLAIN auth failed with code 0x4: busy"), "", ""},
		{errors.New("SASL PLAIN auth failed with code 0x2: "), "", ""},
		{errors.New("read tcp: connection reset by peer"), "", ""},
	} {
		got := saslRefused("external", "amqps://h:5671", tc.err)
		var code fault.Code
		var msg string
		if be, ok := fault.As(got); ok {
			code, msg = be.Code(), be.Message()
		}
		if diff := cmp.Diff([]string{string(tc.wantCode), tc.wantMsg}, []string{string(code), msg}); diff != "" {
			t.Errorf("saslRefused(%q) (-want +got):\n%s", tc.err, diff)
		}
		if got != nil && !errors.Is(got, tc.err) {
			t.Errorf("saslRefused(%q) does not wrap the cause", tc.err)
		}
	}
}
