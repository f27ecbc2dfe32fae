package service

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/registry"
)

// component is one built receiver, sender, session or processor, with the
// fingerprint of the configuration it was built from so that a reload can
// tell whether it may be kept.
type component struct {
	kind  registry.Kind
	id    string
	print string
	value any
	// started is set once a session's Start succeeded.
	started bool
}

// fingerprint is a canonical rendering of a configuration entry; equal
// entries give equal fingerprints (encoding/json sorts map keys).
func fingerprint(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%#v", v)
	}
	return string(b)
}

// key names a component in the bridge's component table.
func key(k registry.Kind, id string) string { return string(k) + "/" + id }

// closeValue releases what a component or store holds.
func closeValue(ctx context.Context, v any) error {
	switch c := v.(type) {
	case ports.Closer:
		return c.Close(ctx)
	case ports.Session:
		return c.Close(ctx)
	case io.Closer:
		return c.Close()
	}
	return nil
}

// sharedSender hides a sender's Close from the runtime: senders outlive
// the runtimes of the routes that use them (a reload restarts a route, not
// its senders), so the bridge closes them itself.
type sharedSender struct{ ports.Sender }

// sharedBatchSender is sharedSender for batch senders.
type sharedBatchSender struct{ ports.BatchSender }

// Unwrap returns the wrapped sender, so that the runtime can ask it what
// it supports (a delay, for one).
func (s sharedSender) Unwrap() ports.Sender { return s.Sender }

// Unwrap returns the wrapped sender.
func (s sharedBatchSender) Unwrap() ports.Sender { return s.BatchSender }

// share wraps s so that the runtime cannot close it, keeping BatchSender.
func share(s ports.Sender) ports.Sender {
	if b, ok := s.(ports.BatchSender); ok {
		return sharedBatchSender{b}
	}
	return sharedSender{s}
}
