package amqp091

import (
	"errors"
	"fmt"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// problems collects configuration problems, each naming its field, so
// that Validate reports all of them at once.
type problems struct{ errs []error }

func (p *problems) add(field, format string, args ...any) {
	p.errs = append(p.errs, fault.ErrInvalidConfig.WithMessage(field+": "+fmt.Sprintf(format, args...)))
}

func (p *problems) addPrefixed(prefix string, err error) {
	if err == nil {
		return
	}
	var joined interface{ Unwrap() []error }
	if errors.As(err, &joined) {
		for _, e := range joined.Unwrap() {
			p.addPrefixed(prefix, e)
		}
		return
	}
	if be, ok := fault.As(err); ok {
		p.errs = append(p.errs, be.WithMessage(prefix+be.Message()))
		return
	}
	p.errs = append(p.errs, fault.ErrInvalidConfig.WithMessage(prefix+err.Error()))
}

func (p *problems) err() error { return errors.Join(p.errs...) }

func checkPositive[T ~int | ~int64](p *problems, field string, v T) {
	if v <= 0 {
		p.add(field, "must be positive, got %v", v)
	}
}

// setDefault replaces a zero value with def.
func setDefault[T comparable](v *T, def T) {
	var zero T
	if *v == zero {
		*v = def
	}
}

// boolOr returns *b, or def when b is nil.
func boolOr(b *bool, def bool) bool {
	if b == nil {
		return def
	}
	return *b
}
