package fault

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// snapshot captures everything observable about a BridgeError.
type snapshot struct {
	Error      string
	Class      Class
	Code       Code
	Message    string
	Attrs      []Attr
	RetryAfter time.Duration
	Cause      error
}

func snap(e *BridgeError) snapshot {
	return snapshot{e.Error(), e.Class(), e.Code(), e.Message(), e.Attrs(), e.RetryAfter(), e.Unwrap()}
}

var cmpSnap = cmp.Comparer(func(a, b error) bool { return a == b })

func TestErrorFormat(t *testing.T) {
	cause := errors.New("dial tcp: refused")
	tests := []struct {
		name string
		err  *BridgeError
		want string
	}{
		{"code only", New(CodeTimeout, ""), "TIMEOUT"},
		{"code and msg", New(CodeTimeout, "waited 5s"), "TIMEOUT: waited 5s"},
		{"code msg cause", ErrConnectionLost.Wrap(cause), "CONNECTION_LOST: connection lost: dial tcp: refused"},
		{"code and cause", New(CodeNotFound, "").Wrap(cause), "NOT_FOUND: dial tcp: refused"},
		{"nested", ErrUnavailable.Wrap(ErrTimeout.Wrap(cause)), "UNAVAILABLE: temporarily unavailable: TIMEOUT: operation timed out: dial tcp: refused"},
		{"newf", Newf(CodeInvalidTopic, "topic %q has %d levels", "a/b", 2), `INVALID_TOPIC: topic "a/b" has 2 levels`},
		{"attrs hidden", ErrForbidden.With("queue", "q1"), "FORBIDDEN: forbidden"},
		{"retry hidden", ErrThrottled.WithRetryAfter(time.Second), "THROTTLED: throttled"},
		{"with message", ErrNotFound.WithMessage("no binding b1"), "NOT_FOUND: no binding b1"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("%s: Error() = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestDerivationsLeaveSentinelUnchanged(t *testing.T) {
	cause := errors.New("boom")
	tests := []struct {
		name   string
		derive func(*BridgeError) *BridgeError
		want   func(base snapshot) snapshot
	}{
		{"Wrap", func(e *BridgeError) *BridgeError { return e.Wrap(cause) },
			func(b snapshot) snapshot { b.Cause = cause; b.Error += ": boom"; return b }},
		{"With", func(e *BridgeError) *BridgeError { return e.With("queue", "q1") },
			func(b snapshot) snapshot { b.Attrs = append(b.Attrs, Attr{"queue", "q1"}); return b }},
		{"WithMessage", func(e *BridgeError) *BridgeError { return e.WithMessage("other") },
			func(b snapshot) snapshot { b.Message = "other"; b.Error = string(b.Code) + ": other"; return b }},
		{"WithRetryAfter", func(e *BridgeError) *BridgeError { return e.WithRetryAfter(3 * time.Second) },
			func(b snapshot) snapshot { b.RetryAfter = 3 * time.Second; return b }},
		{"WithRetryAfter negative", func(e *BridgeError) *BridgeError { return e.WithRetryAfter(-time.Second) },
			func(b snapshot) snapshot { b.RetryAfter = 0; return b }},
	}
	bases := []*BridgeError{ErrUnavailable, ErrNotFound, ErrMessageFiltered, ErrUnavailable.With("a", 1).With("b", 2)}
	for _, tt := range tests {
		for _, base := range bases {
			t.Run(tt.name+"/"+base.Error(), func(t *testing.T) {
				before := snap(base)
				d := tt.derive(base)
				if d == base {
					t.Fatal("derivation returned the receiver")
				}
				if diff := cmp.Diff(tt.want(before), snap(d), cmpSnap); diff != "" {
					t.Errorf("derived (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(before, snap(base), cmpSnap); diff != "" {
					t.Errorf("receiver changed (-before +after):\n%s", diff)
				}
				if !errors.Is(d, base) {
					t.Error("derived error does not match its base with errors.Is")
				}
			})
		}
	}
}

func TestAttrsAreNotAliased(t *testing.T) {
	base := ErrInternal.With("a", 1)
	x, y := base.With("x", 1), base.With("y", 2)
	if diff := cmp.Diff([]Attr{{"a", 1}, {"x", 1}}, x.Attrs()); diff != "" {
		t.Errorf("x attrs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Attr{{"a", 1}, {"y", 2}}, y.Attrs()); diff != "" {
		t.Errorf("y attrs (-want +got):\n%s", diff)
	}
	got := x.Attrs()
	got[0] = Attr{"mutated", 0}
	if diff := cmp.Diff([]Attr{{"a", 1}, {"x", 1}}, x.Attrs()); diff != "" {
		t.Errorf("Attrs() result aliases the error (-want +got):\n%s", diff)
	}
}

func TestSentinelsConcurrentDerivation(t *testing.T) {
	before := snap(ErrUnavailable)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 200 {
				e := ErrUnavailable.With("worker", i).With("iter", j).WithRetryAfter(time.Duration(j)).
					WithMessage("m").Wrap(fmt.Errorf("c%d", j))
				if e.Code() != CodeUnavailable || len(e.Attrs()) != 2 || e.RetryAfter() != time.Duration(j) {
					t.Errorf("worker %d: unexpected derived error %v %v", i, e, e.Attrs())
					return
				}
				_ = ErrUnavailable.Error()
				_ = errors.Is(e, ErrUnavailable)
			}
		})
	}
	wg.Wait()
	if diff := cmp.Diff(before, snap(ErrUnavailable), cmpSnap); diff != "" {
		t.Errorf("sentinel changed under concurrent use (-before +after):\n%s", diff)
	}
}

func TestIs(t *testing.T) {
	cause := errors.New("io")
	tests := []struct {
		name   string
		err    error
		target error
		want   bool
	}{
		{"sentinel itself", ErrTimeout, ErrTimeout, true},
		{"wrapped sentinel", ErrTimeout.Wrap(cause), ErrTimeout, true},
		{"annotated sentinel", ErrTimeout.With("k", "v").WithRetryAfter(time.Second).WithMessage("x"), ErrTimeout, true},
		{"fmt chain", fmt.Errorf("outer: %w", fmt.Errorf("mid: %w", ErrTimeout.Wrap(cause))), ErrTimeout, true},
		{"new with same code", New(CodeTimeout, "other"), ErrTimeout, true},
		{"cause in chain", ErrUnavailable.Wrap(ErrTimeout), ErrTimeout, true},
		{"plain cause in chain", ErrUnavailable.Wrap(cause), cause, true},
		{"joined", errors.Join(cause, ErrNotFound.With("k", 1)), ErrNotFound, true},
		{"different code", ErrTimeout, ErrUnavailable, false},
		{"different code wrapped", fmt.Errorf("x: %w", ErrTimeout.Wrap(cause)), ErrNotFound, false},
		{"plain error", cause, ErrTimeout, false},
		{"bridge vs plain target", ErrTimeout, errors.New("TIMEOUT: operation timed out"), false},
		{"typed nil target", ErrTimeout, (*BridgeError)(nil), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := errors.Is(tt.err, tt.target); got != tt.want {
				t.Errorf("errors.Is(%v, %v) = %v, want %v", tt.err, tt.target, got, tt.want)
			}
		})
	}
}

func TestLogValue(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want map[string]any
	}{
		{
			name: "plain sentinel",
			err:  ErrNotFound,
			want: map[string]any{"class": "permanent", "code": "NOT_FOUND", "msg": "NOT_FOUND: not found"},
		},
		{
			name: "attrs and retry",
			err:  ErrUnavailable.WithRetryAfter(2*time.Second).With("queue", "q1").With("attempt", 3).Wrap(errors.New("503")),
			want: map[string]any{
				"class": "transient", "code": "UNAVAILABLE", "msg": "UNAVAILABLE: temporarily unavailable: 503",
				"retry_after": float64(2 * time.Second), "queue": "q1", "attempt": float64(3),
			},
		},
		{
			name: "rejected",
			err:  ErrPayloadTooLarge.With("size", 2048),
			want: map[string]any{"class": "rejected", "code": "PAYLOAD_TOO_LARGE", "msg": "PAYLOAD_TOO_LARGE: payload too large", "size": float64(2048)},
		},
		{
			name: "expired",
			err:  ErrMessageExpired,
			want: map[string]any{"class": "expired", "code": "MESSAGE_EXPIRED", "msg": "MESSAGE_EXPIRED: message expired"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			slog.New(slog.NewJSONHandler(&buf, nil)).Error("send failed", "err", tt.err)
			var rec map[string]any
			if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
				t.Fatalf("decode %q: %v", buf.String(), err)
			}
			if diff := cmp.Diff(tt.want, rec["err"]); diff != "" {
				t.Errorf("logged err group (-want +got):\n%s", diff)
			}
		})
	}
}
