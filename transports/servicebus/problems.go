package servicebus

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

func (p *problems) err() error { return errors.Join(p.errs...) }

// setDefault replaces a zero value with def.
func setDefault[T comparable](v *T, def T) {
	var zero T
	if *v == zero {
		*v = def
	}
}
