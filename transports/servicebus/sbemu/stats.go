package sbemu

import (
	"context"
	"errors"
	"fmt"

	"github.com/Azure/go-amqp"
)

// Counts is what the emulator holds for one queue, subscription or
// dead-letter queue at the moment Counts asks.
type Counts struct {
	// Active messages wait for a receiver (sessions included).
	Active int
	// Locked messages are delivered in peek-lock mode and not yet settled.
	Locked int
	// Deferred messages wait for ReceiveDeferredMessages.
	Deferred int
	// Scheduled messages wait for their enqueue time (queues only: a
	// topic's scheduled messages belong to no subscription yet).
	Scheduled int
	// DeadLetter is the number of messages in the entity's dead-letter
	// queue (always 0 when path is itself a dead-letter queue).
	DeadLetter int
}

// Counts reports the messages of the queue, subscription or dead-letter
// queue at path, written as the SDK addresses it: "queue",
// "topic/Subscriptions/sub", "queue/$DeadLetterQueue". It asks the emulator
// through its own "$sbemu" AMQP node, on a connection of its own.
func (e *Emulator) Counts(ctx context.Context, path string) (Counts, error) {
	v, err := e.request(ctx, "sbemu:stats", map[string]any{"entity": path})
	if err != nil {
		return Counts{}, err
	}
	get := func(k string) int {
		n, _ := v[k].(int64)
		return int(n)
	}
	return Counts{Active: get("active"), Locked: get("locked"), Deferred: get("deferred"),
		Scheduled: get("scheduled"), DeadLetter: get("dead-letter")}, nil
}

// request runs one operation on the emulator's $sbemu node.
func (e *Emulator) request(ctx context.Context, op string, body map[string]any) (map[string]any, error) {
	conn, err := amqp.Dial(ctx, "amqp://"+e.addr, &amqp.ConnOptions{SASLType: amqp.SASLTypeAnonymous()})
	if err != nil {
		return nil, fmt.Errorf("sbemu: dial: %w", err)
	}
	defer func() { _ = conn.Close() }()
	sess, err := conn.NewSession(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("sbemu: session: %w", err)
	}
	const replyTo = "sbemu-client"
	rcv, err := sess.NewReceiver(ctx, "$sbemu", &amqp.ReceiverOptions{TargetAddress: replyTo, Credit: 1})
	if err != nil {
		return nil, fmt.Errorf("sbemu: attach reply link: %w", err)
	}
	snd, err := sess.NewSender(ctx, "$sbemu", nil)
	if err != nil {
		return nil, fmt.Errorf("sbemu: attach request link: %w", err)
	}
	replyAddr := replyTo
	req := &amqp.Message{
		Properties:            &amqp.MessageProperties{MessageID: op, ReplyTo: &replyAddr},
		ApplicationProperties: map[string]any{"operation": op},
		Value:                 body,
	}
	if err := snd.Send(ctx, req, nil); err != nil {
		return nil, fmt.Errorf("sbemu: %s: %w", op, err)
	}
	resp, err := rcv.Receive(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("sbemu: %s: %w", op, err)
	}
	status, _ := resp.ApplicationProperties["status-code"].(int32)
	if status != 200 {
		desc, _ := resp.ApplicationProperties["status-description"].(string)
		return nil, fmt.Errorf("sbemu: %s: status %d: %s", op, status, desc)
	}
	v, ok := resp.Value.(map[string]any)
	if !ok {
		return nil, errors.New("sbemu: " + op + ": reply is not a map")
	}
	return v, nil
}
