package routing

import (
	"fmt"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// problem is one configuration mistake before it is given its position.
type problem struct {
	msg   string
	cause error
}

func problemf(format string, args ...any) problem {
	return problem{msg: fmt.Sprintf(format, args...)}
}

// invalid builds an INVALID_CONFIG error carrying msg and, when set, cause.
func invalid(msg string, cause error) error {
	e := fault.ErrInvalidConfig.WithMessage(msg)
	if cause != nil {
		e = e.Wrap(cause)
	}
	return e
}

// invalidf is invalid with a formatted message and no cause.
func invalidf(format string, args ...any) error {
	return invalid(fmt.Sprintf(format, args...), nil)
}

// at places p at position i of the list named prefix, for example
// "conditions[1]: operator \"foo\" is invalid".
func (p problem) at(prefix string, i int) error {
	return invalid(fmt.Sprintf("%s[%d]: %s", prefix, i, p.msg), p.cause)
}
