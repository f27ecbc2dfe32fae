package conformance

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// subject is the logical subject used throughout the suites. It looks like
// a topic on purpose, so that a transport confusing subject and address
// shows up.
const subject = "orders.created"

// appHeaders are ordinary application headers: short lower-case names and
// plain values, which every transport can carry.
func appHeaders() map[string]string {
	return map[string]string{
		"app-tenant":  "acme",
		"app-version": "2",
		"app-note":    "hello world",
	}
}

// reservedHeaders are x-bridge.* headers that one bridge passes to the
// next; senders must carry them and receivers must present them.
func reservedHeaders() map[string]string {
	return map[string]string{
		messaging.HeaderCorrelationID:  "corr-4711",
		messaging.HeaderCausationID:    "cause-0815",
		messaging.HeaderIdempotencyKey: "idem-42",
	}
}

// binaryPayload returns 4 KiB holding every byte value, zero included.
func binaryPayload() []byte {
	p := make([]byte, 4096)
	for i := range p {
		p[i] = byte(i * 7) // 7 is odd, so every value occurs; i%256 == 0 gives 0x00
	}
	return p
}

// newEnvelope builds an envelope with a copy of payload and the headers.
func newEnvelope(payload []byte, headers ...map[string]string) *messaging.Envelope {
	env := messaging.NewEnvelope(subject, payload)
	for _, h := range headers {
		for k, v := range h {
			env.SetHeader(k, v)
		}
	}
	return env
}

// numbered builds the i-th of a series of distinguishable envelopes.
func numbered(tag string, i int) *messaging.Envelope {
	return newEnvelope(fmt.Appendf(nil, "%s-%03d", tag, i), appHeaders())
}

// envView is the comparable content of an envelope.
type envView struct {
	ID, Subject          string
	Payload              []byte
	Headers              map[string]any
	CreatedAt, ExpiresAt time.Time
}

func viewOf(env *messaging.Envelope) envView {
	return envView{env.ID, env.Subject, env.Payload(), messaging.CloneHeaders(env.Headers), env.CreatedAt, env.ExpiresAt}
}

// headerDiff compares the headers the suite sent with what arrived,
// ignoring extra received headers and accepting []byte for strings.
func headerDiff(want map[string]string, got map[string]any) string {
	sub := make(map[string]string, len(want))
	for k := range want {
		switch v := got[k].(type) {
		case nil:
		case string:
			sub[k] = v
		case []byte:
			sub[k] = string(v)
		default:
			sub[k] = fmt.Sprintf("%T(%v)", v, v)
		}
	}
	return cmp.Diff(want, sub)
}

// sortedPayloads returns the payloads as sorted strings, for comparing
// sets of messages whose arrival order is not guaranteed.
func sortedPayloads[T any](items []T, payload func(T) []byte) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = string(payload(it))
	}
	sort.Strings(out)
	return out
}

// subtestContext returns a context that ends with the subtest or after
// the timeout.
func subtestContext(t *testing.T, tm Timing) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), tm.Timeout)
	t.Cleanup(cancel)
	return ctx
}

// closeOnCleanup registers a harness's Close, bounded by the timeout.
func closeOnCleanup(t *testing.T, tm Timing, closeFn func(context.Context) error) {
	t.Helper()
	if closeFn == nil {
		return
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), tm.Timeout)
		defer cancel()
		if err := closeFn(ctx); err != nil {
			t.Errorf("harness Close: %v", err)
		}
	})
}

// receive waits for the next message at address or fails the test.
func receive(ctx context.Context, t *testing.T, tg Target, address string) Received {
	t.Helper()
	got, err := tg.Receive(ctx, address)
	if err != nil {
		t.Fatalf("nothing received at %q: %v", address, err)
	}
	return got
}

// expectNothing fails the test if a message arrives at address within the
// quiet period.
func expectNothing(ctx context.Context, t *testing.T, tg Target, address string) {
	t.Helper()
	qctx, cancel := context.WithTimeout(ctx, tg.Quiet)
	defer cancel()
	got, err := tg.Receive(qctx, address)
	switch {
	case err == nil:
		t.Errorf("unexpected message at %q: subject %q, payload %q", address, got.Subject, got.Payload)
	case qctx.Err() == nil:
		t.Errorf("Receive at %q failed before the quiet period ended: %v", address, err)
	}
}

// sendOrFail sends one message and fails the test on error.
func sendOrFail(ctx context.Context, t *testing.T, s ports.Sender, env *messaging.Envelope, address string) {
	t.Helper()
	if err := s.Send(ctx, ports.OutboundMessage{Envelope: env, Address: address}); err != nil {
		t.Fatalf("Send to %q: %v", address, err)
	}
}

// noPanic runs f and turns a panic into a test failure.
func noPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			t.Errorf("%s panicked: %v", what, p)
		}
	}()
	f()
}
