package fault

import (
	"fmt"
	"log/slog"
	"time"
)

// Attr is a key/value detail attached to an error, such as the queue or the
// binding involved. Attributes appear in structured logs, not in Error().
type Attr struct {
	Key   string
	Value any
}

// BridgeError is the structured error of the message path. A value is
// immutable: Wrap, With, WithMessage and WithRetryAfter each return a new
// error and leave the receiver untouched, so package-level sentinels can be
// shared safely.
//
// errors.Is(err, sentinel) matches any BridgeError in err's chain that has
// the sentinel's code, so a wrapped or annotated sentinel still matches.
type BridgeError struct {
	class      Class
	code       Code
	msg        string
	cause      error
	attrs      []Attr
	retryAfter time.Duration
}

// New returns an error with the given code and message. The class comes
// from the code; a code this package does not know is transient.
func New(code Code, msg string) *BridgeError {
	cl, ok := codeClass[code]
	if !ok {
		cl = ClassTransient
	}
	return &BridgeError{class: cl, code: code, msg: msg}
}

// Newf is New with a formatted message. A %w verb is not supported; use Wrap
// to keep a cause.
func Newf(code Code, format string, args ...any) *BridgeError {
	return New(code, fmt.Sprintf(format, args...))
}

// NewWithClass returns an error whose class is set explicitly, for plugin
// codes that this package does not list.
func NewWithClass(class Class, code Code, msg string) *BridgeError {
	return &BridgeError{class: class, code: code, msg: msg}
}

// Class returns the error's class.
func (e *BridgeError) Class() Class { return e.class }

// Code returns the error's code.
func (e *BridgeError) Code() Code { return e.code }

// Message returns the message without the code or the cause.
func (e *BridgeError) Message() string { return e.msg }

// RetryAfter returns the retry hint carried by this error, or zero.
func (e *BridgeError) RetryAfter() time.Duration { return e.retryAfter }

// Attrs returns a copy of the attached attributes.
func (e *BridgeError) Attrs() []Attr { return append([]Attr(nil), e.attrs...) }

// Error formats the error as "CODE: message: cause".
func (e *BridgeError) Error() string {
	s := string(e.code)
	if e.msg != "" {
		s += ": " + e.msg
	}
	if e.cause != nil {
		s += ": " + e.cause.Error()
	}
	return s
}

// Unwrap returns the wrapped cause.
func (e *BridgeError) Unwrap() error { return e.cause }

// Is reports whether target is a BridgeError with the same code.
func (e *BridgeError) Is(target error) bool {
	t, ok := target.(*BridgeError)
	return ok && t != nil && t.code == e.code
}

// Wrap returns a copy of e that carries cause.
func (e *BridgeError) Wrap(cause error) *BridgeError {
	c := e.copy()
	c.cause = cause
	return c
}

// With returns a copy of e with one more attribute.
func (e *BridgeError) With(key string, value any) *BridgeError {
	c := e.copy()
	c.attrs = append(c.attrs, Attr{Key: key, Value: value})
	return c
}

// WithMessage returns a copy of e with a different message.
func (e *BridgeError) WithMessage(msg string) *BridgeError {
	c := e.copy()
	c.msg = msg
	return c
}

// WithRetryAfter returns a copy of e that suggests waiting d before the
// next attempt. A negative d is treated as zero.
func (e *BridgeError) WithRetryAfter(d time.Duration) *BridgeError {
	c := e.copy()
	c.retryAfter = max(d, 0)
	return c
}

// LogValue renders the error for log/slog with its class, code and
// attributes as a group.
func (e *BridgeError) LogValue() slog.Value {
	as := make([]slog.Attr, 0, 4+len(e.attrs))
	as = append(as,
		slog.String("class", e.class.String()),
		slog.String("code", string(e.code)),
		slog.String("msg", e.Error()))
	if e.retryAfter > 0 {
		as = append(as, slog.Duration("retry_after", e.retryAfter))
	}
	for _, a := range e.attrs {
		as = append(as, slog.Any(a.Key, a.Value))
	}
	return slog.GroupValue(as...)
}

func (e *BridgeError) copy() *BridgeError {
	c := *e
	c.attrs = append([]Attr(nil), e.attrs...)
	return &c
}
