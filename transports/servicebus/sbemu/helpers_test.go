package sbemu

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus"
)

// testTimeout bounds every SDK call a test makes.
const testTimeout = 20 * time.Second

func newClient(t *testing.T, e *Emulator) *azservicebus.Client {
	t.Helper()
	c, err := azservicebus.NewClientFromConnectionString(e.ConnectionString(), nil)
	if err != nil {
		t.Fatalf("NewClientFromConnectionString: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		_ = c.Close(ctx)
	})
	return c
}

func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

func newSender(t *testing.T, c *azservicebus.Client, entity string) *azservicebus.Sender {
	t.Helper()
	s, err := c.NewSender(entity, nil)
	if err != nil {
		t.Fatalf("NewSender(%s): %v", entity, err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	return s
}

func newReceiver(t *testing.T, c *azservicebus.Client, queue string, opts *azservicebus.ReceiverOptions) *azservicebus.Receiver {
	t.Helper()
	r, err := c.NewReceiverForQueue(queue, opts)
	if err != nil {
		t.Fatalf("NewReceiverForQueue(%s): %v", queue, err)
	}
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	return r
}

// receiveN receives until it has n messages or ctx ends.
func receiveN(ctx context.Context, t *testing.T, r interface {
	ReceiveMessages(context.Context, int, *azservicebus.ReceiveMessagesOptions) ([]*azservicebus.ReceivedMessage, error)
}, n int) []*azservicebus.ReceivedMessage {
	t.Helper()
	var out []*azservicebus.ReceivedMessage
	for len(out) < n {
		msgs, err := r.ReceiveMessages(ctx, n-len(out), nil)
		if err != nil {
			t.Fatalf("ReceiveMessages: got %d of %d, then %v", len(out), n, err)
		}
		out = append(out, msgs...)
	}
	return out
}

func bodies(msgs []*azservicebus.ReceivedMessage) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = string(m.Body)
	}
	return out
}

// waitCounts polls e.Counts(path) until it equals want or ctx ends.
func waitCounts(ctx context.Context, t *testing.T, e *Emulator, path string, want Counts) {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var got Counts
	for {
		var err error
		got, err = e.Counts(ctx, path)
		if err == nil && got == want {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("Counts(%s) = %+v (err %v), want %+v", path, got, err, want)
		case <-tick.C:
		}
	}
}

func sendBodies(ctx context.Context, t *testing.T, s *azservicebus.Sender, bodies ...string) {
	t.Helper()
	for _, b := range bodies {
		if err := s.SendMessage(ctx, &azservicebus.Message{Body: []byte(b)}, nil); err != nil {
			t.Fatalf("SendMessage(%s): %v", b, err)
		}
	}
}

// codeOf returns the azservicebus error code of err, or "" when it has none.
func codeOf(err error) azservicebus.Code {
	var sbErr *azservicebus.Error
	if errors.As(err, &sbErr) {
		return sbErr.Code
	}
	return ""
}
