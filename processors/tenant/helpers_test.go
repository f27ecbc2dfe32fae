package tenant

import (
	"context"
	"sync"
	"time"

	"github.com/gobridge-oss/gobridge/core/messaging"
)

// fakeValidator answers from a map; unknown tenants are inactive.
type fakeValidator struct {
	infos map[string]TenantInfo
	err   error
	mu    sync.Mutex
	seen  []string
}

func (v *fakeValidator) Validate(_ context.Context, id string) (TenantInfo, error) {
	v.mu.Lock()
	v.seen = append(v.seen, id)
	v.mu.Unlock()
	if v.err != nil {
		return TenantInfo{}, v.err
	}
	if info, ok := v.infos[id]; ok {
		return info, nil
	}
	return TenantInfo{ID: id}, nil
}

func active(id string, maxSize, maxInFlight int64) TenantInfo {
	return TenantInfo{ID: id, Active: true, MaxMessageSizeBytes: maxSize, MaxInFlight: maxInFlight}
}

// scriptedTracker is a MemoryTracker whose calls can fail and which
// records the context each release call received.
type scriptedTracker struct {
	*MemoryTracker
	readErr, incErr, decErr, procErr error

	mu       sync.Mutex
	decs     int
	releases []ctxState
}

type ctxState struct {
	Cancelled   bool
	HasDeadline bool
	Within      bool // deadline no later than the configured timeout
}

func newScripted() *scriptedTracker { return &scriptedTracker{MemoryTracker: NewMemoryTracker()} }

func (s *scriptedTracker) note(ctx context.Context) {
	dl, ok := ctx.Deadline()
	s.releases = append(s.releases, ctxState{ctx.Err() != nil, ok, ok && time.Until(dl) <= DefaultInFlightDecrementTimeout})
}

func (s *scriptedTracker) IncrementInFlight(ctx context.Context, id string) error {
	if s.incErr != nil {
		return s.incErr
	}
	return s.MemoryTracker.IncrementInFlight(ctx, id)
}

func (s *scriptedTracker) DecrementInFlight(ctx context.Context, id string) error {
	s.mu.Lock()
	s.decs++
	s.note(ctx)
	s.mu.Unlock()
	if s.decErr != nil {
		return s.decErr
	}
	return s.MemoryTracker.DecrementInFlight(ctx, id)
}

func (s *scriptedTracker) IncrementProcessed(ctx context.Context, id string) error {
	if s.procErr != nil {
		return s.procErr
	}
	return s.MemoryTracker.IncrementProcessed(ctx, id)
}

func (s *scriptedTracker) Usage(ctx context.Context, id string) (Usage, error) {
	if s.readErr != nil {
		return Usage{}, s.readErr
	}
	return s.MemoryTracker.Usage(ctx, id)
}

// incrementOnly hides the reader of a MemoryTracker.
type incrementOnly struct{ t *MemoryTracker }

func (i incrementOnly) IncrementInFlight(ctx context.Context, id string) error {
	return i.t.IncrementInFlight(ctx, id)
}

func (i incrementOnly) DecrementInFlight(ctx context.Context, id string) error {
	return i.t.DecrementInFlight(ctx, id)
}

func (i incrementOnly) IncrementProcessed(ctx context.Context, id string) error {
	return i.t.IncrementProcessed(ctx, id)
}

func envWith(header string, v any, payload string) *messaging.Envelope {
	e := messaging.NewEnvelope("orders", []byte(payload))
	if v != nil {
		e.Headers[header] = v
	}
	return e
}

// preload puts n deliveries of id in flight.
func preload(t *MemoryTracker, id string, n int) {
	for range n {
		_ = t.IncrementInFlight(context.Background(), id)
	}
}
