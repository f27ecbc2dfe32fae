// Package amqpio is the harness's AMQP 0-9-1 side: queue set-up, the load
// generator that preloads a source queue, and the sink that counts what
// reaches the target queue.
package amqpio

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/gobridge-oss/gobridge/tools/bench"
)

// Topology names the queues and exchange of one AMQP route under test:
// the forwarder consumes Source and publishes to Exchange (direct) with
// routing key Target, which is bound to the queue Target.
type Topology struct {
	Source, Exchange, Target string
}

// Prepare declares the topology (durable classic queues, a durable direct
// exchange) and purges both queues, so that a run starts from nothing.
func Prepare(url string, t Topology) error {
	conn, err := amqp.Dial(url)
	if err != nil {
		return fmt.Errorf("amqpio: dial: %w", err)
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		return err
	}
	if err := ch.ExchangeDeclare(t.Exchange, "direct", true, false, false, false, nil); err != nil {
		return fmt.Errorf("amqpio: exchange %s: %w", t.Exchange, err)
	}
	for _, q := range []string{t.Source, t.Target} {
		if q == "" {
			continue
		}
		if _, err := ch.QueueDeclare(q, true, false, false, false, nil); err != nil {
			return fmt.Errorf("amqpio: queue %s: %w", q, err)
		}
		if _, err := ch.QueuePurge(q, false); err != nil {
			return fmt.Errorf("amqpio: purge %s: %w", q, err)
		}
	}
	if err := ch.QueueBind(t.Target, t.Target, t.Exchange, false, nil); err != nil {
		return fmt.Errorf("amqpio: bind %s: %w", t.Target, err)
	}
	return nil
}

// Depth returns the number of ready messages in a queue (unacknowledged
// ones held by a consumer are not counted).
func Depth(url, queue string) (int, error) {
	conn, err := amqp.Dial(url)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		return 0, err
	}
	q, err := ch.QueueDeclarePassive(queue, true, false, false, false, nil)
	if err != nil {
		return 0, err
	}
	return q.Messages, nil
}

// Load describes what a load generator publishes.
type Load struct {
	Run    uint64 // stamped into every payload
	N      int    // messages, sequence numbers 0..N-1
	Size   int    // payload bytes
	Window int    // unconfirmed publishes at most (default 1000)
	Rate   int    // messages per second; 0 publishes as fast as confirms allow
	// Publishers is the number of channels publishing in parallel
	// (default 4), each a stripe of the sequence numbers.
	Publishers int
	// Exchange to publish to ("": the default exchange, where the routing
	// key is the queue's name), with the mandatory flag when Mandatory.
	Exchange  string
	Mandatory bool
	// Decorate, when set, adds properties or headers to each publishing
	// (to measure what they cost the broker).
	Decorate func(*amqp.Publishing)
}

// Publish sends l.N persistent messages to l.Exchange with routing key
// queue, with publisher confirms, from l.Publishers channels
// (default 4) on one connection, and returns once the broker confirmed
// every one.
func Publish(ctx context.Context, url, queue string, l Load) error {
	conn, err := amqp.Dial(url)
	if err != nil {
		return fmt.Errorf("amqpio: dial: %w", err)
	}
	defer conn.Close()
	return bench.Stripes(ctx, l.Publishers, l.Rate, func(ctx context.Context, pace *bench.Pacer, first, step int) error {
		return publishStripe(ctx, conn, queue, l, pace, first, step)
	})
}

// publishStripe publishes sequence numbers first, first+step, ... on a
// channel of its own.
func publishStripe(ctx context.Context, conn *amqp.Connection, queue string, l Load, pace *bench.Pacer, first, step int) error {
	ch, err := conn.Channel()
	if err != nil {
		return err
	}
	defer ch.Close()
	if err := ch.Confirm(false); err != nil {
		return err
	}
	window := l.Window
	if window <= 0 {
		window = 1000
	}
	pending := make(chan *amqp.DeferredConfirmation, max(window/step, 1))
	waited := make(chan error, 1)
	go func() {
		for dc := range pending {
			ok, err := dc.WaitContext(ctx)
			if err == nil && !ok {
				err = errors.New("amqpio: publish nacked")
			}
			if err != nil {
				waited <- err
				for range pending { // let the publisher finish
				}
				return
			}
		}
		waited <- nil
	}()
	var perr error
	for i := first; i < l.N; i += step {
		if err := pace.Wait(ctx, i); err != nil {
			perr = err
			break
		}
		body := bench.Encode(bench.Stamp{Run: l.Run, Seq: uint64(i), Sent: time.Now()}, l.Size)
		pub := amqp.Publishing{DeliveryMode: amqp.Persistent, Body: body}
		if l.Decorate != nil {
			l.Decorate(&pub)
		}
		dc, err := ch.PublishWithDeferredConfirmWithContext(ctx, l.Exchange, queue, l.Mandatory, false, pub)
		if err != nil {
			perr = err
			break
		}
		pending <- dc
	}
	close(pending)
	return errors.Join(perr, <-waited)
}

// Wire describes the first message a sink received: what the forwarder
// put on it besides the body, to compare forwarders.
type Wire struct {
	Headers       []string // header names, sorted
	HeaderBytes   int      // rough encoded size of the header table
	MessageID     bool
	Timestamp     bool
	AppID         string
	DeliveryMode  uint8
	ContentType   string
	CorrelationID bool
}

// String is a one-line summary of the properties.
func (w Wire) String() string {
	return fmt.Sprintf("headers=[%s] (~%d B) message_id=%v timestamp=%v app_id=%q delivery_mode=%d content_type=%q correlation_id=%v",
		strings.Join(w.Headers, ","), w.HeaderBytes, w.MessageID, w.Timestamp, w.AppID, w.DeliveryMode, w.ContentType, w.CorrelationID)
}

func wireOf(d *amqp.Delivery) Wire {
	w := Wire{Headers: slices.Sorted(maps.Keys(d.Headers)), MessageID: d.MessageId != "", Timestamp: !d.Timestamp.IsZero(),
		AppID: d.AppId, DeliveryMode: d.DeliveryMode, ContentType: d.ContentType, CorrelationID: d.CorrelationId != ""}
	for k, v := range d.Headers {
		w.HeaderBytes += 1 + len(k) + 1 + len(fmt.Sprint(v)) + 4 // name length, name, type, value, value length
	}
	return w
}

// Sink consumes a queue (auto-ack: the sink's own cost is the same for
// every forwarder) and feeds every payload's stamp to a counter.
type Sink struct {
	conn  *amqp.Connection
	mu    sync.Mutex
	first *Wire
	done  chan error
}

// StartSink starts consuming queue into c until Stop.
func StartSink(url, queue string, c *bench.Counter) (*Sink, error) {
	conn, err := amqp.Dial(url)
	if err != nil {
		return nil, fmt.Errorf("amqpio: dial: %w", err)
	}
	ch, err := conn.Channel()
	if err != nil {
		conn.Close()
		return nil, err
	}
	if err := ch.Qos(2000, 0, false); err != nil {
		conn.Close()
		return nil, err
	}
	ds, err := ch.Consume(queue, "", true, false, false, false, nil)
	if err != nil {
		conn.Close()
		return nil, err
	}
	s := &Sink{conn: conn, done: make(chan error, 1)}
	go func() {
		var bad int
		for d := range ds {
			st, err := bench.Decode(d.Body)
			if err != nil {
				bad++
				continue
			}
			s.mu.Lock()
			if s.first == nil {
				w := wireOf(&d)
				s.first = &w
			}
			s.mu.Unlock()
			c.Observe(st, time.Now())
		}
		if bad > 0 {
			s.done <- fmt.Errorf("amqpio: %d payloads without a stamp", bad)
			return
		}
		s.done <- nil
	}()
	return s, nil
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

// Stop closes the sink's connection and waits for its consumer.
func (s *Sink) Stop() error {
	_ = s.conn.Close()
	return <-s.done
}
