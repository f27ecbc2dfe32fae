// Package runtime runs routes: for every route it starts the receiver,
// hands each delivery through the processor chain to the resolved bindings'
// senders, and settles the delivery with its source according to the
// outcome and the route's policy.
//
// A Runtime is built from Route values with New, which checks every route
// and reports all problems at once. Run starts one runner per route and
// blocks until its context ends; it then stops intake, lets in-flight
// deliveries finish within Options.StopTimeout, leaves the rest unsettled so
// their sources redeliver them, and finally closes the senders.
package runtime
