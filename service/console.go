package service

import (
	"context"
	"fmt"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/httpapi"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// The operator console's extensions of the admin API backend.
var (
	_ httpapi.ConfigPreviewer = (*Service)(nil)
	_ httpapi.RouteRedriver   = (*Service)(nil)
)

// PreviewConfig returns the configuration a posted document would run,
// redacted like Config, for the reload preview.
func (b *Service) PreviewConfig(_ context.Context, yaml []byte) (map[string]any, error) {
	f, _, err := b.parseAndValidate(yaml)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return f.Redacted(b.schemas), nil
}

// RedriveTo sends a DLQ entry through routeID instead of its own route.
// The entry is first moved to routeID (written anew with that route and
// the old one deleted), then redriven there from the start of the route,
// whatever stage dead-lettered it. When the move's write succeeds and its
// delete fails, both entries exist and the error says so.
func (b *Service) RedriveTo(ctx context.Context, entryID, routeID string) (string, error) {
	dlq := b.DLQ()
	if dlq == nil {
		return "", fault.ErrNotFound.WithMessage("no DLQ store is configured")
	}
	e, err := dlq.Get(ctx, entryID)
	if err != nil {
		return "", err
	}
	if e.RouteID == routeID {
		return b.Redrive(ctx, entryID)
	}
	b.mu.Lock()
	rr, ok := b.routes[routeID]
	b.mu.Unlock()
	if !ok {
		return "", fault.ErrNotFound.WithMessage(fmt.Sprintf("route %q is not configured", routeID))
	}
	if e.Envelope == nil {
		return "", fault.ErrInvalidPayload.WithMessage(fmt.Sprintf("DLQ entry %q has no message", entryID))
	}
	moved := e
	moved.ID, moved.RouteID, moved.BindingID, moved.Address = messaging.NewID(), routeID, "", ""
	moved.Envelope = e.Envelope.Clone()
	delete(moved.Envelope.Headers, ports.HeaderDLQStage)
	if err := dlq.Write(ctx, moved); err != nil {
		return "", fmt.Errorf("moving DLQ entry %q to route %q: %w", entryID, routeID, err)
	}
	if err := dlq.Delete(ctx, entryID); err != nil {
		return "", fmt.Errorf("DLQ entry %q was copied to route %q as %q but not deleted: %w", entryID, routeID, moved.ID, err)
	}
	return rr.currentRuntime().Redrive(ctx, moved.ID)
}
