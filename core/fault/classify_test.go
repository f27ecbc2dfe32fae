package fault

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestClassify(t *testing.T) {
	plain := errors.New("third-party failure")
	type result struct {
		AsOK        bool
		AsCode      Code
		Class       Class
		Code        Code
		Recoverable bool
		RetryAfter  time.Duration
	}
	tests := []struct {
		name string
		err  error
		want result
	}{
		{"nil", nil, result{}},
		{"plain", plain, result{Class: ClassTransient, Code: CodeInternal, Recoverable: true}},
		{"context canceled", context.Canceled, result{Class: ClassTransient, Code: CodeInternal, Recoverable: true}},
		{"context deadline", context.DeadlineExceeded, result{Class: ClassTransient, Code: CodeTimeout, Recoverable: true}},
		{"wrapped deadline", fmt.Errorf("send: %w", context.DeadlineExceeded),
			result{Class: ClassTransient, Code: CodeTimeout, Recoverable: true}},
		{"bridge wrapping deadline", ErrUnavailable.Wrap(context.DeadlineExceeded),
			result{true, CodeUnavailable, ClassTransient, CodeUnavailable, true, 0}},
		{"permanent wrapping deadline", ErrNotAuthorized.Wrap(context.DeadlineExceeded),
			result{true, CodeNotAuthorized, ClassPermanent, CodeNotAuthorized, false, 0}},
		{"transient sentinel", ErrThrottled, result{true, CodeThrottled, ClassTransient, CodeThrottled, true, 0}},
		{"permanent sentinel", ErrForbidden, result{true, CodeForbidden, ClassPermanent, CodeForbidden, false, 0}},
		{"rejected sentinel", ErrMessageFiltered, result{true, CodeMessageFiltered, ClassRejected, CodeMessageFiltered, false, 0}},
		{"expired sentinel", ErrMessageExpired, result{true, CodeMessageExpired, ClassExpired, CodeMessageExpired, false, 0}},
		{"fmt chain", fmt.Errorf("a: %w", fmt.Errorf("b: %w", ErrInvalidConfig.With("k", "v"))),
			result{true, CodeInvalidConfig, ClassPermanent, CodeInvalidConfig, false, 0}},
		{"outermost bridge wins", fmt.Errorf("a: %w", ErrSchemaViolation.Wrap(ErrTimeout)),
			result{true, CodeSchemaViolation, ClassRejected, CodeSchemaViolation, false, 0}},
		{"bridge below plain", ErrNotFound.Wrap(plain),
			result{true, CodeNotFound, ClassPermanent, CodeNotFound, false, 0}},
		{"custom class", NewWithClass(ClassPermanent, "PLUGIN_X", "m"),
			result{true, "PLUGIN_X", ClassPermanent, "PLUGIN_X", false, 0}},
		{"retry hint", ErrUnavailable.WithRetryAfter(30 * time.Second),
			result{true, CodeUnavailable, ClassTransient, CodeUnavailable, true, 30 * time.Second}},
		{"negative retry hint", ErrUnavailable.WithRetryAfter(-5 * time.Second),
			result{true, CodeUnavailable, ClassTransient, CodeUnavailable, true, 0}},
		{"joined plain first", errors.Join(plain, ErrForbidden),
			result{true, CodeForbidden, ClassPermanent, CodeForbidden, false, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			be, ok := As(tt.err)
			got := result{AsOK: ok, Class: ClassOf(tt.err), Code: CodeOf(tt.err),
				Recoverable: IsRecoverable(tt.err), RetryAfter: RetryAfter(tt.err)}
			if ok {
				got.AsCode = be.Code()
			} else if be != nil {
				t.Errorf("As returned %v with ok=false", be)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("classification (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAsReturnsFirstInChain(t *testing.T) {
	inner := ErrTimeout.With("depth", "inner")
	outer := ErrUnavailable.With("depth", "outer").Wrap(inner)
	be, ok := As(fmt.Errorf("ctx: %w", outer))
	if !ok || be != outer {
		t.Fatalf("As = %v, %v; want the outer error", be, ok)
	}
	if diff := cmp.Diff([]Attr{{"depth", "outer"}}, be.Attrs()); diff != "" {
		t.Errorf("attrs (-want +got):\n%s", diff)
	}
}

func TestRetryAfterLargestWins(t *testing.T) {
	plain := errors.New("plain")
	tests := []struct {
		name string
		err  error
		want time.Duration
	}{
		{"none", ErrUnavailable, 0},
		{"plain", plain, 0},
		{"single", ErrThrottled.WithRetryAfter(time.Second), time.Second},
		{"fmt wrapped", fmt.Errorf("x: %w", ErrThrottled.WithRetryAfter(time.Second)), time.Second},
		{"outer larger", ErrUnavailable.WithRetryAfter(9 * time.Second).Wrap(ErrThrottled.WithRetryAfter(time.Second)), 9 * time.Second},
		{"inner larger", ErrUnavailable.WithRetryAfter(time.Second).Wrap(ErrThrottled.WithRetryAfter(7 * time.Second)), 7 * time.Second},
		{"deep", ErrUnavailable.Wrap(fmt.Errorf("a: %w", ErrTimeout.Wrap(ErrThrottled.WithRetryAfter(4*time.Second)))), 4 * time.Second},
		{"join", errors.Join(
			ErrUnavailable.WithRetryAfter(2*time.Second),
			plain,
			fmt.Errorf("b: %w", ErrThrottled.WithRetryAfter(5*time.Second)),
			ErrBrokerBusy.WithRetryAfter(3*time.Second),
		), 5 * time.Second},
		{"join inside bridge", ErrUnavailable.WithRetryAfter(time.Second).Wrap(errors.Join(
			ErrThrottled.WithRetryAfter(6*time.Second), ErrBrokerBusy.WithRetryAfter(2*time.Second))), 6 * time.Second},
		{"multi %w", fmt.Errorf("%w and %w", ErrThrottled.WithRetryAfter(8*time.Second), ErrBrokerBusy.WithRetryAfter(time.Second)), 8 * time.Second},
		{"nested joins", errors.Join(errors.Join(ErrThrottled.WithRetryAfter(time.Minute)), ErrBrokerBusy.WithRetryAfter(time.Second)), time.Minute},
		{"negative clamps", ErrUnavailable.WithRetryAfter(-time.Hour), 0},
		{"negative beside positive", errors.Join(ErrUnavailable.WithRetryAfter(-time.Hour), ErrThrottled.WithRetryAfter(time.Millisecond)), time.Millisecond},
	}
	for _, tt := range tests {
		if got := RetryAfter(tt.err); got != tt.want {
			t.Errorf("%s: RetryAfter = %v, want %v", tt.name, got, tt.want)
		}
	}
}
