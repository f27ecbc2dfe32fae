package sbio

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus"

	"github.com/gobridge-oss/gobridge/tools/bench"
)

// sinkCompleters is how many completions the sink runs side by side: the
// SDK settles one message per call, answered by the broker.
const sinkCompleters = 32

// Wire describes the first message a sink received: what the forwarder
// put on it besides the body.
type Wire struct {
	Properties    []string // application property names, sorted
	MessageID     bool
	CorrelationID bool
	ContentType   string
	Subject       string
}

// String is a one-line summary.
func (w Wire) String() string {
	return fmt.Sprintf("application_properties=[%s] message_id=%v correlation_id=%v content_type=%q subject=%q",
		strings.Join(w.Properties, ","), w.MessageID, w.CorrelationID, w.ContentType, w.Subject)
}

// Sink receives a queue in peek-lock mode, feeds every payload's stamp to
// a counter and completes each message (the same work for every
// forwarder under test).
type Sink struct {
	client *azservicebus.Client
	rcv    *azservicebus.Receiver
	cancel context.CancelFunc
	mu     sync.Mutex
	first  *Wire
	done   chan error
}

// StartSink starts receiving queue into c until Stop.
func StartSink(connStr, queue string, c *bench.Counter) (*Sink, error) {
	client, err := azservicebus.NewClientFromConnectionString(connStr, nil)
	if err != nil {
		return nil, fmt.Errorf("sbio: client: %w", err)
	}
	rcv, err := client.NewReceiverForQueue(queue, &azservicebus.ReceiverOptions{ReceiveMode: azservicebus.ReceiveModePeekLock})
	if err != nil {
		_ = client.Close(context.Background())
		return nil, fmt.Errorf("sbio: receiver: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Sink{client: client, rcv: rcv, cancel: cancel, done: make(chan error, 1)}
	go func() { s.done <- s.run(ctx, c) }()
	return s, nil
}

// run receives until ctx ends, handing completions to a pool.
func (s *Sink) run(ctx context.Context, c *bench.Counter) error {
	todo := make(chan *azservicebus.ReceivedMessage, 2000)
	var wg sync.WaitGroup
	var cerrMu sync.Mutex
	var cerr error
	for range sinkCompleters {
		wg.Go(func() {
			for m := range todo {
				if err := s.rcv.CompleteMessage(ctx, m, nil); err != nil && ctx.Err() == nil {
					cerrMu.Lock()
					cerr = errors.Join(cerr, err)
					cerrMu.Unlock()
				}
			}
		})
	}
	var bad int
	var rerr error
	for ctx.Err() == nil {
		msgs, err := s.rcv.ReceiveMessages(ctx, 1000, nil)
		if err != nil {
			if ctx.Err() == nil {
				rerr = fmt.Errorf("sbio: receive: %w", err)
			}
			break
		}
		now := time.Now()
		for _, m := range msgs {
			st, err := bench.Decode(m.Body)
			if err != nil {
				bad++
			} else {
				c.Observe(st, now)
			}
			s.noteFirst(m)
			todo <- m
		}
	}
	close(todo)
	wg.Wait()
	if bad > 0 {
		rerr = errors.Join(rerr, fmt.Errorf("sbio: %d payloads without a stamp", bad))
	}
	cerrMu.Lock()
	defer cerrMu.Unlock()
	if cerr != nil {
		rerr = errors.Join(rerr, fmt.Errorf("sbio: complete: %w", cerr))
	}
	return rerr
}

func (s *Sink) noteFirst(m *azservicebus.ReceivedMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.first != nil {
		return
	}
	w := Wire{Properties: slices.Sorted(maps.Keys(m.ApplicationProperties)), MessageID: m.MessageID != "",
		CorrelationID: m.CorrelationID != nil && *m.CorrelationID != ""}
	if m.ContentType != nil {
		w.ContentType = *m.ContentType
	}
	if m.Subject != nil {
		w.Subject = *m.Subject
	}
	s.first = &w
}

// FirstWire returns the properties of the first message received, if one
// arrived.
func (s *Sink) FirstWire() (Wire, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.first == nil {
		return Wire{}, false
	}
	return *s.first, true
}

// Stop ends the receive loop, waits for it and closes the connection.
func (s *Sink) Stop() error {
	s.cancel()
	err := <-s.done
	_ = s.rcv.Close(context.Background())
	return errors.Join(err, s.client.Close(context.Background()))
}
