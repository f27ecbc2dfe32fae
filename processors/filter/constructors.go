package filter

// NewDropFilter returns a filter named name that discards every message
// matching all of conds and lets the others through.
func NewDropFilter(name string, conds ...Condition) (*Filter, error) {
	return New(Config{Name: name, Action: ActionDrop, Conditions: conds})
}

// NewPassFilter returns a filter named name that lets through only the
// messages matching all of conds and discards the others.
func NewPassFilter(name string, conds ...Condition) (*Filter, error) {
	return New(Config{Name: name, Action: ActionPass, Conditions: conds})
}

// NewRouteFilter returns a filter named name that sends every message
// matching all of conds to the binding bindingID of its route. Messages
// that do not match continue untouched. An empty bindingID is a
// configuration error (see ErrRouteRequired).
func NewRouteFilter(name, bindingID string, conds ...Condition) (*Filter, error) {
	return New(Config{Name: name, Action: ActionRoute, RouteTo: bindingID, Conditions: conds})
}
