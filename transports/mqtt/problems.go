package mqtt

import (
	"errors"
	"fmt"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// problems collects configuration errors, each a fault.ErrInvalidConfig
// whose message starts with the field name.
type problems []error

func (ps *problems) add(field, format string, args ...any) {
	*ps = append(*ps, fault.ErrInvalidConfig.WithMessage(field+": "+fmt.Sprintf(format, args...)))
}

func (ps problems) err() error { return errors.Join(ps...) }

func setDefault[T int | int64 | uint32 | float64 | time.Duration](p *T, def T) {
	if *p == 0 {
		*p = def
	}
}

func notNegative[T int | int64 | float64 | time.Duration](ps *problems, field string, v T) {
	if v < 0 {
		ps.add(field, "must not be negative, got %v", v)
	}
}
