package sbemu

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus"
)

// BenchmarkSendBatchReceiveComplete measures a round trip through the
// emulator: batches of 100 sent, then received in peek-lock and completed
// one by one. b.N counts messages.
func BenchmarkSendBatchReceiveComplete(b *testing.B) {
	e := StartForTest(b, Options{Entities: []Entity{{Name: "bench"}}})
	c, err := azservicebus.NewClientFromConnectionString(e.ConnectionString(), nil)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	defer func() { _ = c.Close(ctx) }()
	s, err := c.NewSender("bench", nil)
	if err != nil {
		b.Fatal(err)
	}
	r, err := c.NewReceiverForQueue("bench", nil)
	if err != nil {
		b.Fatal(err)
	}
	body := make([]byte, 256)
	b.ResetTimer()
	sent := 0
	for sent < b.N {
		batch, err := s.NewMessageBatch(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < 100 && sent < b.N; i++ {
			if err := batch.AddMessage(&azservicebus.Message{Body: body, MessageID: ptr(fmt.Sprint(sent))}, nil); err != nil {
				b.Fatal(err)
			}
			sent++
		}
		if err := s.SendMessageBatch(ctx, batch, nil); err != nil {
			b.Fatal(err)
		}
	}
	for got := 0; got < b.N; {
		msgs, err := r.ReceiveMessages(ctx, min(b.N-got, 100), nil)
		if err != nil {
			b.Fatal(err)
		}
		for _, m := range msgs {
			if err := r.CompleteMessage(ctx, m, nil); err != nil {
				b.Fatal(err)
			}
		}
		got += len(msgs)
	}
}

func ptr[T any](v T) *T { return &v }

// BenchmarkForward moves b.N messages from one queue to another the way a
// plain forwarder does: receive up to 100, send them as one batch, complete
// them concurrently.
func BenchmarkForward(b *testing.B) {
	e := StartForTest(b, Options{Entities: []Entity{{Name: "in"}, {Name: "out"}}})
	c, err := azservicebus.NewClientFromConnectionString(e.ConnectionString(), nil)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	defer func() { _ = c.Close(ctx) }()
	in, err := c.NewSender("in", nil)
	if err != nil {
		b.Fatal(err)
	}
	out, err := c.NewSender("out", nil)
	if err != nil {
		b.Fatal(err)
	}
	r, err := c.NewReceiverForQueue("in", nil)
	if err != nil {
		b.Fatal(err)
	}
	body := make([]byte, 256)
	for sent := 0; sent < b.N; {
		batch, err := in.NewMessageBatch(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < 100 && sent < b.N; i++ {
			if err := batch.AddMessage(&azservicebus.Message{Body: body}, nil); err != nil {
				b.Fatal(err)
			}
			sent++
		}
		if err := in.SendMessageBatch(ctx, batch, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for moved := 0; moved < b.N; {
		msgs, err := r.ReceiveMessages(ctx, min(b.N-moved, 100), nil)
		if err != nil {
			b.Fatal(err)
		}
		batch, err := out.NewMessageBatch(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		for _, m := range msgs {
			if err := batch.AddMessage(&azservicebus.Message{Body: m.Body, ApplicationProperties: m.ApplicationProperties}, nil); err != nil {
				b.Fatal(err)
			}
		}
		if err := out.SendMessageBatch(ctx, batch, nil); err != nil {
			b.Fatal(err)
		}
		errs := make(chan error, len(msgs))
		for _, m := range msgs {
			go func() { errs <- r.CompleteMessage(ctx, m, nil) }()
		}
		for range msgs {
			if err := <-errs; err != nil {
				b.Fatal(err)
			}
		}
		moved += len(msgs)
	}
}

// BenchmarkSendBatch measures sending alone: batches of 100 messages of
// 256 bytes. b.N counts messages.
func BenchmarkSendBatch(b *testing.B) {
	e := StartForTest(b, Options{Entities: []Entity{{Name: "bench"}}})
	c, err := azservicebus.NewClientFromConnectionString(e.ConnectionString(), nil)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	defer func() { _ = c.Close(ctx) }()
	s, err := c.NewSender("bench", nil)
	if err != nil {
		b.Fatal(err)
	}
	body := make([]byte, 256)
	b.ResetTimer()
	for sent := 0; sent < b.N; {
		batch, err := s.NewMessageBatch(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < 100 && sent < b.N; i++ {
			if err := batch.AddMessage(&azservicebus.Message{Body: body}, nil); err != nil {
				b.Fatal(err)
			}
			sent++
		}
		if err := s.SendMessageBatch(ctx, batch, nil); err != nil {
			b.Fatal(err)
		}
	}
}
