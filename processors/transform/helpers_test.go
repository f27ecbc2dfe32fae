package transform

import (
	"context"
	"testing"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

var _ ports.Processor = (*Transformer)(nil)

func mustNew(t testing.TB, cfg Config, opts ...Option) *Transformer {
	t.Helper()
	tr, err := New(cfg, opts...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return tr
}

// result of one Process call: the payload after it (unchanged on error),
// the error code and message, and whether next ran.
type outcome struct {
	Payload string
	Code    string
	Err     string
	Next    bool
}

func process(t testing.TB, tr *Transformer, payload string) outcome {
	t.Helper()
	env := messaging.NewEnvelope("s", []byte(payload))
	var o outcome
	err := tr.Process(context.Background(), env, func(context.Context, *messaging.Envelope) error {
		o.Next = true
		return nil
	})
	o.Payload = string(env.PayloadView())
	if err != nil {
		o.Code = string(fault.CodeOf(err))
		o.Err = err.Error()
		if fault.ClassOf(err) != fault.ClassRejected {
			t.Errorf("error %v has class %v, want rejected", err, fault.ClassOf(err))
		}
	}
	return o
}

// ok is the outcome of a successful call producing payload.
func ok(payload string) outcome { return outcome{Payload: payload, Next: true} }

// failed is the outcome of a refused call on payload.
func failed(payload, code, msg string) outcome {
	return outcome{Payload: payload, Code: code, Err: msg}
}
