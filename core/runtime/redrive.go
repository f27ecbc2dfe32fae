package runtime

import (
	"context"
	"fmt"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// Redrive sends a dead-lettered message through its route again and returns
// the ID of the new message.
//
// The message gets a fresh ID and the header ports.HeaderRedrivenFrom with
// its old ID. An entry the outbox drainer wrote (ports.HeaderDLQStage) is
// already processed for its binding: it is persisted to that binding's
// outbox partition again, and the entry deleted once it is stored. Any
// other entry goes through the route from the start (header rules,
// processors, resolver, dispatch or outbox) as if its receiver had emitted
// it. Redrive waits for the outcome:
//
//   - delivered (or persisted, on a shared_outbox route): the entry is
//     deleted and err is nil;
//   - failed again and recorded by the route's policy (a new DLQ entry, or
//     a drop): the old entry is deleted and err describes the failure;
//   - failed transiently, or not settled before ctx ended: the entry is
//     kept and err says why.
//
// The runtime must be running, and Options.DLQ must be a ports.DLQStore.
func (rt *Runtime) Redrive(ctx context.Context, entryID string) (string, error) {
	store, ok := rt.opts.DLQ.(ports.DLQStore)
	if !ok {
		return "", fault.ErrNotSupported.WithMessage("redrive needs a DLQ store that can read and delete entries")
	}
	if !rt.running.Load() {
		return "", fault.ErrUnavailable.WithMessage("redrive needs a running bridge")
	}
	e, err := store.Get(ctx, entryID)
	if err != nil {
		return "", err
	}
	rn := rt.route(e.RouteID)
	if rn == nil {
		return "", fault.ErrNotFound.WithMessage(fmt.Sprintf("route %q of DLQ entry %q is not configured", e.RouteID, entryID))
	}
	if e.Envelope == nil {
		return "", fault.ErrInvalidPayload.WithMessage(fmt.Sprintf("DLQ entry %q has no message", entryID))
	}
	env := e.Envelope.Clone()
	env.ID = messaging.NewID()
	env.SetHeader(ports.HeaderRedrivenFrom, e.Envelope.ID)
	if stage, _ := env.Headers[ports.HeaderDLQStage].(string); stage == ports.DLQStageOutbox {
		delete(env.Headers, ports.HeaderDLQStage)
		return rt.redriveToOutbox(ctx, rn, store, e, env)
	}

	d := &redriveDelivery{env: env, ctx: ctx, done: make(chan ports.Settlement, 1)}
	if err := rn.emit(ctx, d); err != nil {
		return "", err
	}
	var st ports.Settlement
	select {
	case st = <-d.done:
	case <-ctx.Done():
		return "", fault.ErrTimeout.WithMessage("redriven message not settled in time; the entry is kept").Wrap(ctx.Err())
	}
	if st.Outcome != ports.SettledAcked {
		return env.ID, fault.ErrUnavailable.WithMessage("redriven message was not delivered; the entry is kept").Wrap(st.Err)
	}
	if err := store.Delete(context.WithoutCancel(ctx), entryID); err != nil {
		return env.ID, fmt.Errorf("redriven message settled but the old entry could not be deleted: %w", err)
	}
	if st.Err != nil {
		return env.ID, fault.ErrUnavailable.WithMessage("redriven message failed again and was handled by the route's policy").Wrap(st.Err)
	}
	return env.ID, nil
}

// redriveToOutbox persists an entry the drainer wrote back into its
// binding's outbox partition: its envelope already went through the
// route's processors and resolver once, and running them again would apply
// a transform twice. The entry is deleted once the record is stored.
func (rt *Runtime) redriveToOutbox(ctx context.Context, rn *runner, store ports.DLQStore, e ports.DLQEntry, env *messaging.Envelope) (string, error) {
	if rt.opts.Outbox == nil || rn.bindings[e.BindingID] == nil {
		return "", fault.ErrNotFound.WithMessage(fmt.Sprintf(
			"DLQ entry %q came from the outbox of binding %q, which route %q no longer has; the entry is kept", e.ID, e.BindingID, e.RouteID))
	}
	rec := ports.OutboxRecord{Partition: partitionOf(e.RouteID, e.BindingID), RouteID: e.RouteID,
		BindingID: e.BindingID, Address: e.Address, Envelope: env}
	if err := rt.opts.Outbox.Persist(ctx, []ports.OutboxRecord{rec}); err != nil {
		return "", fault.ErrUnavailable.WithMessage("redriven message could not be stored; the entry is kept").Wrap(err)
	}
	if err := store.Delete(context.WithoutCancel(ctx), e.ID); err != nil {
		return env.ID, fmt.Errorf("redriven message stored but the old entry could not be deleted: %w", err)
	}
	return env.ID, nil
}

// route returns the runner of the route with the given ID.
func (rt *Runtime) route(id string) *runner {
	for _, rn := range rt.runners {
		if rn.route.ID == id {
			return rn
		}
	}
	return nil
}

// redriveDelivery is the delivery Redrive hands to a route. Its source is
// the operator's call: settlement is reported back on done, and the
// delivery is abandoned when the call's context ends.
type redriveDelivery struct {
	env  *messaging.Envelope
	ctx  context.Context
	done chan ports.Settlement
}

func (d *redriveDelivery) Envelope() *messaging.Envelope                     { return d.env }
func (d *redriveDelivery) Ack(context.Context) error                         { return nil }
func (d *redriveDelivery) Retry(context.Context, time.Duration, error) error { return nil }
func (d *redriveDelivery) Extend(context.Context, time.Time) error           { return nil }
func (d *redriveDelivery) Abandoned() <-chan struct{}                        { return d.ctx.Done() }

// Settled reports the outcome to the waiting Redrive call.
func (d *redriveDelivery) Settled(st ports.Settlement) { d.done <- st }
