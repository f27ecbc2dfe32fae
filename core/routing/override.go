package routing

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// maxLoggedOverride bounds how much of an override value is logged.
const maxLoggedOverride = 128

// override interprets the route override header. It returns the plans of
// the named binding when the binding is declared on the route. Any other
// value is not honoured: a non-empty one is logged as a warning and the
// message is resolved normally.
//
// The override header is internal-only (messaging.IsInternalOnly), so it
// is stripped at ingress and can only have been set by a processor of this
// bridge, typically a filter with a route action.
func (r *resolver) override(ctx context.Context, v any) ([]ports.DispatchPlan, bool) {
	var id string
	switch x := v.(type) {
	case string:
		id = x
	case []byte:
		if plans, ok := r.byID[string(x)]; ok {
			return plans, true
		}
		id = string(x)
	default:
		r.log.LogAttrs(ctx, slog.LevelWarn, "route override is not a string; ignoring it",
			slog.String("override_type", fmt.Sprintf("%T", v)))
		return nil, false
	}
	if plans, ok := r.byID[id]; ok {
		return plans, true
	}
	if id == "" {
		return nil, false
	}
	if len(id) > maxLoggedOverride {
		id = id[:maxLoggedOverride] + "…"
	}
	r.log.LogAttrs(ctx, slog.LevelWarn, "route override references unknown binding; resolving normally",
		slog.String("override", id))
	return nil, false
}
