package amqp10io

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	amqp "github.com/Azure/go-amqp"

	"github.com/gobridge-oss/gobridge/tools/bench"
)

// sinkCredit is the sink's link credit; it is topped up in steps of a
// quarter of it (go-amqp's automatic credit stalls on RabbitMQ 3.x).
const sinkCredit = 2000

// Wire describes the first message a sink received: what the forwarder
// put on it besides the body.
type Wire struct {
	ApplicationProperties []string // names, sorted
	Annotations           int      // message annotations
	MessageID             bool
	CorrelationID         bool
	CreationTime          bool
	Durable               bool
}

// String is a one-line summary.
func (w Wire) String() string {
	return fmt.Sprintf("application_properties=[%s] annotations=%d message_id=%v correlation_id=%v creation_time=%v durable=%v",
		strings.Join(w.ApplicationProperties, ","), w.Annotations, w.MessageID, w.CorrelationID, w.CreationTime, w.Durable)
}

func wireOf(m *amqp.Message) Wire {
	w := Wire{ApplicationProperties: slices.Sorted(maps.Keys(m.ApplicationProperties)), Annotations: len(m.Annotations)}
	if p := m.Properties; p != nil {
		w.MessageID, w.CorrelationID = p.MessageID != nil, p.CorrelationID != nil
		w.CreationTime = p.CreationTime != nil && !p.CreationTime.IsZero()
	}
	w.Durable = m.Header != nil && m.Header.Durable
	return w
}

// Sink receives from an address, accepts every message and feeds every
// payload's stamp to a counter.
type Sink struct {
	conn   *amqp.Conn
	cancel context.CancelFunc
	mu     sync.Mutex
	first  *Wire
	done   chan error
}

// StartSink starts receiving address into c until Stop.
func StartSink(ctx context.Context, url, address string, c *bench.Counter) (*Sink, error) {
	conn, err := Dial(ctx, url)
	if err != nil {
		return nil, err
	}
	sess, err := conn.NewSession(ctx, nil)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("amqp10io: session: %w", err)
	}
	rcv, err := sess.NewReceiver(ctx, address, &amqp.ReceiverOptions{Credit: -1})
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("amqp10io: receiver: %w", err)
	}
	if err := rcv.IssueCredit(sinkCredit); err != nil {
		conn.Close()
		return nil, fmt.Errorf("amqp10io: credit: %w", err)
	}
	rctx, cancel := context.WithCancel(context.Background())
	s := &Sink{conn: conn, cancel: cancel, done: make(chan error, 1)}
	go func() { s.done <- s.run(rctx, rcv, c) }()
	return s, nil
}

func (s *Sink) run(ctx context.Context, rcv *amqp.Receiver, c *bench.Counter) error {
	var bad, owed int
	for {
		m, err := rcv.Receive(ctx, nil)
		if err != nil {
			if ctx.Err() != nil {
				err = nil
			}
			if bad > 0 {
				err = errors.Join(err, fmt.Errorf("amqp10io: %d payloads without a stamp", bad))
			}
			return err
		}
		now := time.Now()
		if st, err := bench.Decode(m.GetData()); err != nil {
			bad++
		} else {
			c.Observe(st, now)
		}
		s.mu.Lock()
		if s.first == nil {
			w := wireOf(m)
			s.first = &w
		}
		s.mu.Unlock()
		if err := rcv.AcceptMessage(ctx, m); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("amqp10io: accept: %w", err)
		}
		if owed++; owed == sinkCredit/4 {
			if err := rcv.IssueCredit(uint32(owed)); err != nil {
				return fmt.Errorf("amqp10io: credit: %w", err)
			}
			owed = 0
		}
	}
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
	return errors.Join(err, s.conn.Close())
}
