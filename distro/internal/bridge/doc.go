// Package bridge turns a validated configuration file into a running
// bridge: it builds stores, sessions, senders, processors and receivers
// through the registry, runs each route in a runtime of its own so that a
// reload can swap one route without touching the others, and answers the
// admin and monitor APIs.
package bridge
