package main

import (
	"context"
	"errors"
	"fmt"
	"sync"

	amqp "github.com/Azure/go-amqp"
)

// amqp10ToAMQP10 is the plain go-amqp forwarder: on one connection, a
// receiver on /amq/queue/<src> with o.window credit and a sender to
// /amq/queue/<dst>, each on a session of its own. Each message is sent as
// it arrives (many in flight); a goroutine waits for the outcomes in
// order, accepts each source message after the target accepted its copy,
// and gives its credit back (go-amqp's automatic credit stalls on
// RabbitMQ 3.x), by the rule the bridge's AMQP 1.0 receiver follows: only
// once the peer has used up what it was granted. Giving each credit back
// as its message was accepted stalled now and then on RabbitMQ 3.10
// (a test run stopped at 56 of 400 messages): its plugin reads a flow's
// link-credit differently from AMQP 1.0 while credit is outstanding.
// Credentials in o.amqpURL are sent with SASL PLAIN.
func amqp10ToAMQP10(ctx context.Context, o options, ready func()) error {
	conn, err := amqp.Dial(ctx, o.amqpURL, nil)
	if err != nil {
		return err
	}
	defer conn.Close()
	rs, err := conn.NewSession(ctx, nil)
	if err != nil {
		return err
	}
	ss, err := conn.NewSession(ctx, nil)
	if err != nil {
		return err
	}
	rcv, err := rs.NewReceiver(ctx, "/amq/queue/"+o.src, &amqp.ReceiverOptions{Credit: -1})
	if err != nil {
		return err
	}
	credit := &creditRefill{rcv: rcv}
	if err := credit.grant(uint32(o.window)); err != nil {
		return err
	}
	snd, err := ss.NewSender(ctx, "/amq/queue/"+o.dst, nil)
	if err != nil {
		return err
	}
	ready()
	type job struct {
		m *amqp.Message
		r amqp.SendReceipt
	}
	jobs := make(chan job, o.window)
	acked := make(chan error, 1)
	go func() {
		acked <- func() error {
			for j := range jobs {
				st, err := j.r.Wait(ctx)
				if err != nil {
					return err
				}
				if _, ok := st.(*amqp.StateAccepted); !ok {
					return fmt.Errorf("target outcome %T, want accepted", st)
				}
				if err := rcv.AcceptMessage(ctx, j.m); err != nil {
					return err
				}
				if err := credit.settled(); err != nil {
					return err
				}
			}
			return nil
		}()
	}()
	var ferr error
	for {
		m, err := rcv.Receive(ctx, nil)
		if err != nil {
			ferr = err
			break
		}
		if err := credit.received(); err != nil {
			ferr = err
			break
		}
		r, err := snd.SendWithReceipt(ctx, &amqp.Message{Data: m.Data, Header: m.Header, Properties: m.Properties,
			ApplicationProperties: m.ApplicationProperties}, nil)
		if err != nil {
			ferr = err
			break
		}
		select {
		case jobs <- job{m, r}:
		case err := <-acked:
			ferr = errors.Join(err, errors.New("acknowledger stopped"))
			acked <- err
		}
		if ferr != nil {
			break
		}
	}
	close(jobs)
	return errors.Join(ferr, <-acked)
}

// creditRefill gives a receiver's credit back for settled messages, but
// only once the peer has used up what it was granted, so that a flow
// frame means the same whether the peer reads its link-credit as a new
// total or as an increment.
type creditRefill struct {
	rcv *amqp.Receiver

	mu      sync.Mutex
	granted uint64 // credit granted since attach
	taken   uint64 // messages received since attach
	pending uint32 // settled messages whose credit is not given back yet
}

func (c *creditRefill) grant(k uint32) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.granted += uint64(k)
	return c.rcv.IssueCredit(k)
}

func (c *creditRefill) received() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.taken++
	return c.refillLocked()
}

func (c *creditRefill) settled() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending++
	return c.refillLocked()
}

func (c *creditRefill) refillLocked() error {
	if c.taken < c.granted || c.pending == 0 {
		return nil
	}
	k := c.pending
	c.pending = 0
	c.granted += uint64(k)
	return c.rcv.IssueCredit(k)
}
