package sbemu

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/Azure/go-amqp"
)

// FuzzTransferRoundTrip sends arbitrary messages straight over go-amqp and
// checks that each comes back as sent, and that the emulator survives
// whatever it was given. The one allowed difference is the documented batch
// heuristic: a body that is itself an encoded AMQP message is read as a
// one-message batch.
func FuzzTransferRoundTrip(f *testing.F) {
	f.Add([]byte("plain"), "v", int64(1))
	f.Add([]byte{}, "", int64(0))
	f.Add([]byte{0x00, 0x53, 0x75, 0xa0, 0x01, 'x'}, "batch-looking", int64(-1))
	f.Add([]byte{0x00, 0x53, 0x77, 0xff}, "truncated", int64(1<<40))
	e := StartForTest(f, Options{Entities: []Entity{{Name: "q"}}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	conn, err := amqp.Dial(ctx, "amqp://"+e.Addr(), &amqp.ConnOptions{SASLType: amqp.SASLTypeAnonymous()})
	if err != nil {
		f.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	sess, err := conn.NewSession(ctx, nil)
	if err != nil {
		f.Fatal(err)
	}
	snd, err := sess.NewSender(ctx, "q", nil)
	if err != nil {
		f.Fatal(err)
	}
	rcv, err := sess.NewReceiver(ctx, "q", &amqp.ReceiverOptions{
		SettlementMode: amqp.ReceiverSettleModeFirst.Ptr(), RequestedSenderSettleMode: amqp.SenderSettleModeSettled.Ptr()})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte, text string, n int64) {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		msg := &amqp.Message{
			Data:                  [][]byte{body},
			ApplicationProperties: map[string]any{"text": text, "n": n},
			Annotations:           amqp.Annotations{"x-user": text},
		}
		if err := snd.Send(ctx, msg, nil); err != nil {
			// The emulator rejecting what it cannot parse is fine, and so is
			// go-amqp refusing to encode (invalid UTF-8); a dead link or a
			// dead emulator is not.
			var amqpErr *amqp.Error
			var linkErr *amqp.LinkError
			var connErr *amqp.ConnError
			switch {
			case errors.As(err, &amqpErr) && amqpErr.Condition == "amqp:decode-error":
			case errors.As(err, &amqpErr), errors.As(err, &linkErr), errors.As(err, &connErr), ctx.Err() != nil:
				t.Fatalf("Send of body %x text %q: %v", body, text, err)
			}
			return
		}
		got, err := rcv.Receive(ctx, nil)
		if err != nil {
			t.Fatalf("Receive after sending body %x text %q: %v", body, text, err)
		}
		var inner amqp.Message
		if len(got.Data) != 1 || !bytes.Equal(got.Data[0], body) {
			if inner.UnmarshalBinary(body) == nil && (inner.Data != nil || inner.Value != nil || inner.Sequence != nil) {
				return // read as a batch of one, as documented
			}
			t.Fatalf("body changed: sent %x, got %x", body, got.Data)
		}
		if got.ApplicationProperties["text"] != text || got.ApplicationProperties["n"] != n || got.Annotations["x-user"] != text {
			t.Fatalf("properties changed: got %v / %v", got.ApplicationProperties, got.Annotations)
		}
	})
}
