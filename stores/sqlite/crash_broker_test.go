package sqlite_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// lineBroker is a tiny message broker served over a Unix socket by the
// crash test's parent process, so that it outlives the bridge processes the
// test kills. It has one source queue with acknowledgements (unacked
// messages of a connection that drops go back to the queue) and one target
// that counts what arrives. Protocol, one line per request and reply:
//
//	GET        -> MSG <id> | EMPTY
//	ACK <id>   -> OK
//	NACK <id>  -> OK        (back to the queue)
//	PUT <id>   -> OK        (arrived at the target)
type lineBroker struct {
	ln net.Listener

	mu       sync.Mutex
	queue    []string
	acked    map[string]bool
	received map[string]int
	changed  chan struct{}
}

func newLineBroker(path string, ids []string) (*lineBroker, error) {
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	b := &lineBroker{ln: ln, queue: append([]string(nil), ids...), acked: map[string]bool{},
		received: map[string]int{}, changed: make(chan struct{}, 1)}
	go b.serve()
	return b, nil
}

func (b *lineBroker) serve() {
	for {
		c, err := b.ln.Accept()
		if err != nil {
			return
		}
		go b.conn(c)
	}
}

// conn serves one connection; whatever it took and did not settle goes
// back to the queue when it drops.
func (b *lineBroker) conn(c net.Conn) {
	defer c.Close()
	inflight := map[string]bool{}
	defer func() {
		b.mu.Lock()
		for id := range inflight {
			b.queue = append([]string{id}, b.queue...)
		}
		b.mu.Unlock()
	}()
	sc := bufio.NewScanner(c)
	for sc.Scan() {
		verb, id, _ := strings.Cut(sc.Text(), " ")
		reply := "OK"
		b.mu.Lock()
		switch verb {
		case "GET":
			if len(b.queue) == 0 {
				reply = "EMPTY"
			} else {
				id, b.queue = b.queue[0], b.queue[1:]
				inflight[id] = true
				reply = "MSG " + id
			}
		case "ACK":
			delete(inflight, id)
			b.acked[id] = true
		case "NACK":
			delete(inflight, id)
			b.queue = append(b.queue, id)
		case "PUT":
			b.received[id]++
		default:
			reply = "ERR unknown verb"
		}
		b.mu.Unlock()
		select {
		case b.changed <- struct{}{}:
		default:
		}
		if _, err := fmt.Fprintln(c, reply); err != nil {
			return
		}
	}
}

// stats returns how many distinct messages arrived, how many arrivals were
// duplicates, and how many source messages were acknowledged.
func (b *lineBroker) stats() (distinct, duplicates, acked int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, n := range b.received {
		distinct++
		duplicates += n - 1
	}
	return distinct, duplicates, len(b.acked)
}

// missing lists the IDs that never arrived.
func (b *lineBroker) missing(ids []string) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for _, id := range ids {
		if b.received[id] == 0 {
			out = append(out, id)
		}
	}
	return out
}

// lineClient is one request/reply connection to the broker.
type lineClient struct {
	mu sync.Mutex
	c  net.Conn
	r  *bufio.Reader
}

func dialBroker(path string) (*lineClient, error) {
	c, err := net.Dial("unix", path)
	if err != nil {
		return nil, err
	}
	return &lineClient{c: c, r: bufio.NewReader(c)}, nil
}

func (l *lineClient) call(ctx context.Context, req string) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if d, ok := ctx.Deadline(); ok {
		_ = l.c.SetDeadline(d)
	} else {
		_ = l.c.SetDeadline(time.Time{})
	}
	if _, err := fmt.Fprintln(l.c, req); err != nil {
		return "", fault.ErrConnectionLost.Wrap(err)
	}
	line, err := l.r.ReadString('\n')
	if err != nil {
		return "", fault.ErrConnectionLost.Wrap(err)
	}
	return strings.TrimSpace(line), nil
}

// brokerReceiver pulls messages from the broker's queue.
type brokerReceiver struct{ cl *lineClient }

func (r *brokerReceiver) Run(ctx context.Context, emit ports.EmitFunc) error {
	for ctx.Err() == nil {
		reply, err := r.cl.call(ctx, "GET")
		if err != nil {
			return err
		}
		id, ok := strings.CutPrefix(reply, "MSG ")
		if !ok {
			select {
			case <-ctx.Done():
			case <-time.After(2 * time.Millisecond):
			}
			continue
		}
		env := messaging.NewEnvelope("crash.test", []byte(id))
		env.ID = id
		if err := emit(ctx, &brokerDelivery{cl: r.cl, env: env}); err != nil {
			_, _ = r.cl.call(context.Background(), "NACK "+id)
		}
	}
	return nil
}

type brokerDelivery struct {
	cl  *lineClient
	env *messaging.Envelope
}

func (d *brokerDelivery) Envelope() *messaging.Envelope { return d.env }
func (d *brokerDelivery) Ack(ctx context.Context) error {
	_, err := d.cl.call(ctx, "ACK "+d.env.ID)
	return err
}
func (d *brokerDelivery) Retry(ctx context.Context, _ time.Duration, _ error) error {
	_, err := d.cl.call(ctx, "NACK "+d.env.ID)
	return err
}
func (d *brokerDelivery) Extend(context.Context, time.Time) error { return fault.ErrNotSupported }

// brokerSender puts messages at the broker's target.
type brokerSender struct{ cl *lineClient }

func (s *brokerSender) Send(ctx context.Context, m ports.OutboundMessage) error {
	reply, err := s.cl.call(ctx, "PUT "+m.Envelope.ID)
	if err != nil {
		return err
	}
	if reply != "OK" {
		return errors.New("broker: " + reply)
	}
	return nil
}
