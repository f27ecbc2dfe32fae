package fault

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSpecCodeClasses(t *testing.T) {
	tests := []struct {
		code Code
		want Class
	}{
		{"TIMEOUT", ClassTransient},
		{"CONNECTION_LOST", ClassTransient},
		{"UNAVAILABLE", ClassTransient},
		{"THROTTLED", ClassTransient},
		{"BROKER_BUSY", ClassTransient},
		{"TEMPORARY_AUTH_FAILURE", ClassTransient},

		{"NOT_AUTHORIZED", ClassPermanent},
		{"FORBIDDEN", ClassPermanent},
		{"NOT_FOUND", ClassPermanent},
		{"INVALID_CONFIG", ClassPermanent},
		{"PROTOCOL_ERROR", ClassPermanent},
		{"QOS_NOT_SUPPORTED", ClassPermanent},

		{"INVALID_PAYLOAD", ClassRejected},
		{"PAYLOAD_TOO_LARGE", ClassRejected},
		{"INVALID_TOPIC", ClassRejected},
		{"SCHEMA_VIOLATION", ClassRejected},
		{"MESSAGE_FILTERED", ClassRejected},

		{"MESSAGE_EXPIRED", ClassExpired},
	}
	for _, tt := range tests {
		got, ok := ClassOfCode(tt.code)
		if !ok {
			t.Errorf("code %s is not defined", tt.code)
			continue
		}
		if got != tt.want {
			t.Errorf("ClassOfCode(%s) = %v, want %v", tt.code, got, tt.want)
		}
		if e := New(tt.code, "m"); e.Class() != tt.want || ClassOf(e) != tt.want {
			t.Errorf("New(%s).Class() = %v, ClassOf = %v, want %v", tt.code, e.Class(), ClassOf(e), tt.want)
		}
		if rec := IsRecoverable(New(tt.code, "m")); rec != (tt.want == ClassTransient) {
			t.Errorf("IsRecoverable(%s) = %v", tt.code, rec)
		}
	}
}

func TestInfrastructureCodesPresent(t *testing.T) {
	for _, c := range []Code{"NOT_SUPPORTED", "VERSION_MISMATCH", "ALREADY_EXISTS", "STALE_FENCING_TOKEN", "DUPLICATE_RECORD"} {
		cl, ok := ClassOfCode(c)
		if !ok {
			t.Errorf("infrastructure code %s is not defined", c)
			continue
		}
		if cl.String() == "unknown" {
			t.Errorf("infrastructure code %s has no valid class (%d)", c, cl)
		}
	}
}

func TestClassOfCodeUnknown(t *testing.T) {
	for _, c := range []Code{"", "timeout", "NOPE", "TIMEOUT "} {
		if cl, ok := ClassOfCode(c); ok || cl != 0 {
			t.Errorf("ClassOfCode(%q) = %v, %v; want 0, false", c, cl, ok)
		}
	}
	if got := New("PLUGIN_SPECIFIC", "m").Class(); got != ClassTransient {
		t.Errorf("unknown code class = %v, want transient", got)
	}
	if got := NewWithClass(ClassRejected, "PLUGIN_SPECIFIC", "m").Class(); got != ClassRejected {
		t.Errorf("NewWithClass class = %v, want rejected", got)
	}
}

func TestCodesListsEveryCodeOnce(t *testing.T) {
	codes := Codes()
	sorted := slices.Clone(codes)
	slices.Sort(sorted)
	if got := slices.Compact(slices.Clone(sorted)); len(got) != len(codes) {
		t.Errorf("Codes() has duplicates: %v", sorted)
	}
	for _, c := range codes {
		if _, ok := ClassOfCode(c); !ok {
			t.Errorf("Codes() lists %s but ClassOfCode does not know it", c)
		}
		if string(c) != toUpperASCII(string(c)) || c == "" {
			t.Errorf("code %q is not a non-empty upper-case identifier", c)
		}
	}
	codes[0] = "MUTATED"
	if slices.Contains(Codes(), "MUTATED") {
		t.Error("mutating Codes() result affected the next call")
	}
}

func toUpperASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

func TestSentinelsMatchTheirCodes(t *testing.T) {
	sentinels := map[Code]*BridgeError{
		CodeTimeout: ErrTimeout, CodeConnectionLost: ErrConnectionLost, CodeUnavailable: ErrUnavailable,
		CodeThrottled: ErrThrottled, CodeBrokerBusy: ErrBrokerBusy, CodeTemporaryAuthFailure: ErrTemporaryAuthFailure,
		CodeTenantQuotaExceeded: ErrTenantQuotaExceeded, CodeVersionMismatch: ErrVersionMismatch, CodeInternal: ErrInternal,
		CodeNotAuthorized: ErrNotAuthorized, CodeForbidden: ErrForbidden, CodeNotFound: ErrNotFound,
		CodeInvalidConfig: ErrInvalidConfig, CodeProtocolError: ErrProtocolError, CodeQoSNotSupported: ErrQoSNotSupported,
		CodeNotSupported: ErrNotSupported, CodeAlreadyExists: ErrAlreadyExists, CodeStaleFencingToken: ErrStaleFencingToken,
		CodeDuplicateRecord: ErrDuplicateRecord, CodePoisonMessage: ErrPoisonMessage,
		CodeInvalidPayload: ErrInvalidPayload, CodePayloadTooLarge: ErrPayloadTooLarge, CodeInvalidTopic: ErrInvalidTopic,
		CodeSchemaViolation: ErrSchemaViolation, CodeMessageFiltered: ErrMessageFiltered,
		CodeMessageExpired: ErrMessageExpired,
	}
	gotCodes := Codes()
	slices.Sort(gotCodes)
	var wantCodes []Code
	for c := range sentinels {
		wantCodes = append(wantCodes, c)
	}
	slices.Sort(wantCodes)
	if diff := cmp.Diff(wantCodes, gotCodes); diff != "" {
		t.Errorf("every code needs a sentinel (-sentinels +Codes()):\n%s", diff)
	}
	for c, s := range sentinels {
		want, _ := ClassOfCode(c)
		if s.Code() != c || s.Class() != want || s.Message() == "" || s.Unwrap() != nil || s.RetryAfter() != 0 || len(s.Attrs()) != 0 {
			t.Errorf("sentinel for %s: code %s class %v msg %q cause %v retry %v attrs %v",
				c, s.Code(), s.Class(), s.Message(), s.Unwrap(), s.RetryAfter(), s.Attrs())
		}
	}
}

func TestClassString(t *testing.T) {
	tests := []struct {
		c    Class
		want string
	}{
		{ClassTransient, "transient"},
		{ClassPermanent, "permanent"},
		{ClassExpired, "expired"},
		{ClassRejected, "rejected"},
		{0, "unknown"},
		{200, "unknown"},
	}
	for _, tt := range tests {
		if got := tt.c.String(); got != tt.want {
			t.Errorf("Class(%d).String() = %q, want %q", tt.c, got, tt.want)
		}
	}
}
