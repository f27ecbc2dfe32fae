package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus"
)

// sbToSB is the plain azservicebus forwarder: on one connection (two
// with -conns 2), receive up to o.window messages in peek-lock mode, send
// their bodies to o.dst as one batch (more when they do not fit one), and
// complete each received message once the send that carried it
// succeeded, the completions side by side. The next receive waits for them: at most o.window messages are
// locked at once.
func sbToSB(ctx context.Context, o options, ready func()) error {
	client, err := azservicebus.NewClientFromConnectionString(o.sbConn, nil)
	if err != nil {
		return err
	}
	defer client.Close(context.Background())
	rcv, err := client.NewReceiverForQueue(o.src, &azservicebus.ReceiverOptions{ReceiveMode: azservicebus.ReceiveModePeekLock})
	if err != nil {
		return err
	}
	defer rcv.Close(context.Background())
	sendClient := client
	if o.conns == 2 {
		// A connection of its own for the sender, as the bridge's sender
		// and receiver each have.
		if sendClient, err = azservicebus.NewClientFromConnectionString(o.sbConn, nil); err != nil {
			return err
		}
		defer sendClient.Close(context.Background())
	}
	snd, err := sendClient.NewSender(o.dst, nil)
	if err != nil {
		return err
	}
	defer snd.Close(context.Background())
	ready()
	// The calls it made, on stderr (the harness keeps it in fwd.log), to
	// compare with the bridge's counters.
	var receives, sends, msgsIn int
	defer func() {
		fmt.Fprintf(os.Stderr, "calls: %d receives, %d sends for %d messages\n", receives, sends, msgsIn)
	}()
	for {
		msgs, err := rcv.ReceiveMessages(ctx, o.window, nil)
		if err != nil {
			return err
		}
		receives++
		msgsIn += len(msgs)
		for len(msgs) > 0 {
			sends++
			n, err := sendBatch(ctx, snd, msgs, o)
			if err != nil {
				return err
			}
			if err := completeAll(ctx, rcv, msgs[:n]); err != nil {
				return err
			}
			msgs = msgs[n:]
		}
	}
}

// sendBatch sends the bodies of as many of msgs as one batch holds and
// returns how many it sent. With -bridge-props (or -bridge-ids and
// -bridge-headers, its halves) each message also carries what the
// bridge's Service Bus sender puts on the wire: the source's message ID
// and creation time (its enqueued time when it had none), and that ID
// again as the correlation ID.
func sendBatch(ctx context.Context, snd *azservicebus.Sender, msgs []*azservicebus.ReceivedMessage, o options) (int, error) {
	batch, err := snd.NewMessageBatch(ctx, nil)
	if err != nil {
		return 0, err
	}
	n := 0
	for ; n < len(msgs); n++ {
		var err error
		if o.sendsIDs() || o.sendsHeaders() {
			err = batch.AddAMQPAnnotatedMessage(sbOutbound(msgs[n], o), nil)
		} else {
			err = batch.AddMessage(&azservicebus.Message{Body: msgs[n].Body}, nil)
		}
		if err != nil {
			if !errors.Is(err, azservicebus.ErrMessageTooLarge) {
				return 0, err
			}
			break
		}
	}
	if n == 0 {
		return 0, fmt.Errorf("a %d-byte message does not fit an empty batch", len(msgs[0].Body))
	}
	return n, snd.SendMessageBatch(ctx, batch, nil)
}

// completeAll completes msgs side by side (the SDK settles one message
// per call).
func completeAll(ctx context.Context, rcv *azservicebus.Receiver, msgs []*azservicebus.ReceivedMessage) error {
	var wg sync.WaitGroup
	errs := make([]error, len(msgs))
	for i, m := range msgs {
		wg.Go(func() { errs[i] = rcv.CompleteMessage(ctx, m, nil) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// sbOutbound is the message sendBatch sends for m.
func sbOutbound(m *azservicebus.ReceivedMessage, o options) *azservicebus.AMQPAnnotatedMessage {
	out := &azservicebus.AMQPAnnotatedMessage{Body: azservicebus.AMQPAnnotatedMessageBody{Data: [][]byte{m.Body}}}
	p := &azservicebus.AMQPAnnotatedMessageProperties{}
	if o.sendsIDs() {
		p.MessageID = m.MessageID
		t := m.EnqueuedTime
		if raw := m.RawAMQPMessage; raw != nil && raw.Properties != nil && raw.Properties.CreationTime != nil {
			t = raw.Properties.CreationTime
		}
		p.CreationTime = t
	}
	if o.sendsHeaders() {
		p.CorrelationID = m.MessageID
	}
	out.Properties = p
	return out
}
