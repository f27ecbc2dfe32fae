package runtime

import "github.com/gobridge-oss/gobridge/core/fault"

// errFenced fails a direct send that the fence stopped.
var errFenced = fault.ErrUnavailable.WithMessage("this instance no longer holds the route's lease")

// fenced reports whether Options.Fence forbids sending and settling now.
func (rn *runner) fenced() bool { return rn.opts.Fence != nil && !rn.opts.Fence() }
