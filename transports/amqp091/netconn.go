package amqp091

import (
	"errors"
	"net"
	"sync"
	"time"
)

// coalesceLimit bounds the bytes a coalescing connection buffers before
// writers wait for the socket.
const coalesceLimit = 1 << 20

// coalescingConn batches the many small writes of concurrent publishers
// and acknowledgements into fewer socket writes. The client library
// flushes after every frame group (one publish, one ack); here Write only
// appends to a buffer, and one writer goroutine sends whatever accumulated
// while its previous write was in the kernel. An idle connection therefore
// writes at once, a busy one in batches, with no timer. Order is kept, and
// a socket error is returned by the next Write.
type coalescingConn struct {
	net.Conn

	mu      sync.Mutex
	space   *sync.Cond // signalled when the buffer drained or the writer stopped
	buf     []byte
	spare   []byte
	err     error
	closing bool
	wake    chan struct{}
	done    chan struct{} // closed when the writer returned
}

func newCoalescingConn(c net.Conn) *coalescingConn {
	cc := &coalescingConn{Conn: c, wake: make(chan struct{}, 1), done: make(chan struct{})}
	cc.space = sync.NewCond(&cc.mu)
	go cc.writer()
	return cc
}

var errConnClosed = errors.New("amqp091: connection closed")

// Write queues p for the writer goroutine.
func (c *coalescingConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	for len(c.buf) >= coalesceLimit && c.err == nil && !c.closing {
		c.space.Wait()
	}
	switch {
	case c.err != nil:
		err := c.err
		c.mu.Unlock()
		return 0, err
	case c.closing:
		c.mu.Unlock()
		return 0, errConnClosed
	}
	c.buf = append(c.buf, p...)
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
	return len(p), nil
}

// writer owns the socket's write side until Close or a write error.
func (c *coalescingConn) writer() {
	defer close(c.done)
	for range c.wake {
		c.mu.Lock()
		out := c.buf
		c.buf = c.spare[:0]
		closing := c.closing
		c.mu.Unlock()
		var err error
		if len(out) > 0 {
			_, err = c.Conn.Write(out)
		}
		c.mu.Lock()
		c.spare = out[:0]
		if err != nil {
			c.err = err
		}
		c.space.Broadcast()
		c.mu.Unlock()
		if err != nil || closing {
			return
		}
	}
}

// Close sends what is buffered (within a second) and closes the socket.
func (c *coalescingConn) Close() error {
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		return c.Conn.Close()
	}
	c.closing = true
	c.space.Broadcast()
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
	select {
	case <-c.done:
	case <-time.After(time.Second):
	}
	return c.Conn.Close()
}
