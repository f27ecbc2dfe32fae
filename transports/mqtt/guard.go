package mqtt

import (
	"errors"
	"net"
	"sync"
)

const (
	// maxVarint is the largest Remaining Length MQTT can encode.
	maxVarint = 268435455
	// minPacketSize is the smallest Maximum Packet Size this package
	// accepts, so that CONNACK, SUBACK and DISCONNECT always fit.
	minPacketSize = 512
	// readAhead is how many bytes the guard reads from the network at
	// once, beside the one packet it may buffer.
	readAhead = 16 << 10

	publishType = 3
)

// guardLimits are what the ingress guard enforces.
type guardLimits struct {
	// maxPacket is the Maximum Packet Size announced in CONNECT.
	maxPacket int
	// maxUserProps is the retained cap on user properties; the guard
	// keeps one more, so that the publish callback sees the overflow.
	maxUserProps int
}

// guardConn is the ingress guard: a net.Conn between the network (after
// TLS or WebSocket) and the MQTT client. Reads hand the client whole,
// validated packets: the Remaining Length is checked against the
// announced maximum before any body byte is buffered, a PUBLISH has its
// structure checked and an over-long user property list trimmed, and any
// violation is reported to onViolation before the read fails with it, and
// every later read fails with it too. Deadlines, addresses and Close go
// straight to the wrapped connection.
//
// Writes are unchanged too, but coalesced: paho writes a packet in several
// parts while holding the conn's lock (it locks a conn that is a
// sync.Locker), so the parts written between Lock and Unlock are gathered
// and sent with one write at Unlock, which is what a plain *net.TCPConn
// achieves with writev. A failed flush is returned by the next Write; the
// connection is then failing anyway, and QoS 1/2 delivery rests on
// acknowledgements, not on write results.
type guardConn struct {
	net.Conn

	wmu      sync.Mutex
	batching bool
	wbuf     []byte
	werr     error

	lim         guardLimits
	onViolation func(*IngressViolation)

	rbuf       []byte // bytes read from the network, rbuf[rpos:rend] unconsumed
	rpos, rend int
	out        []byte // validated bytes the client has not read yet
	scratch    []byte // rebuilt PUBLISH packets
	violation  error  // latched; every later Read returns it
}

func newGuardConn(c net.Conn, lim guardLimits, onViolation func(*IngressViolation)) *guardConn {
	return &guardConn{Conn: c, lim: lim, onViolation: onViolation, rbuf: make([]byte, min(readAhead, lim.maxPacket))}
}

// maxBatch is the most a coalesced write gathers before it flushes early.
const maxBatch = 64 << 10

// Lock starts a coalesced write.
func (g *guardConn) Lock() {
	g.wmu.Lock()
	g.batching = true
}

// Unlock flushes the gathered parts with one write and ends the batch.
func (g *guardConn) Unlock() {
	if err := g.flush(); err != nil && g.werr == nil {
		g.werr = err
	}
	g.batching = false
	g.wmu.Unlock()
}

// Write sends p, or gathers it while a batch is open. Only the goroutine
// holding the lock writes while a batch is open: every paho packet write
// goes through packets.ControlPacket.WriteTo, which takes the lock.
func (g *guardConn) Write(p []byte) (int, error) {
	if !g.batching {
		g.wmu.Lock()
		defer g.wmu.Unlock()
	}
	if g.werr != nil {
		return 0, g.werr
	}
	if !g.batching {
		return g.Conn.Write(p)
	}
	if len(g.wbuf)+len(p) > maxBatch {
		if err := g.flush(); err != nil {
			g.werr = err
			return 0, err
		}
		if len(p) > maxBatch {
			return g.Conn.Write(p)
		}
	}
	g.wbuf = append(g.wbuf, p...)
	return len(p), nil
}

// flush writes the gathered parts; g.wmu is held.
func (g *guardConn) flush() error {
	if len(g.wbuf) == 0 {
		return nil
	}
	_, err := g.Conn.Write(g.wbuf)
	g.wbuf = g.wbuf[:0]
	return err
}

// Read returns bytes of validated packets. A network error is returned as
// it is and does not lose buffered bytes, so a read that times out can be
// retried as on any net.Conn.
func (g *guardConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if len(g.out) == 0 {
		if g.violation != nil {
			return 0, g.violation
		}
		if err := g.next(); err != nil {
			if v, ok := errors.AsType[*IngressViolation](err); ok {
				g.violation = v
				if g.onViolation != nil {
					g.onViolation(v)
				}
			}
			return 0, err
		}
	}
	n := copy(p, g.out)
	g.out = g.out[n:]
	return n, nil
}

// next reads and checks the next packet and makes it g.out.
func (g *guardConn) next() error {
	if err := g.fill(2); err != nil {
		return err
	}
	first := g.rbuf[g.rpos]
	pt := first >> 4
	if pt == 0 {
		return malformed(0, "reserved packet type 0")
	}
	rl, hl := 0, 1
	for i := 0; ; i++ {
		if i == 4 {
			return malformed(pt, "remaining length longer than four bytes")
		}
		if err := g.fill(hl + 1); err != nil {
			return err
		}
		c := g.rbuf[g.rpos+hl]
		hl++
		rl |= int(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			if c == 0 && i > 0 {
				return malformed(pt, "remaining length not minimally encoded")
			}
			break
		}
	}
	size := hl + rl
	if size > g.lim.maxPacket {
		return &IngressViolation{Kind: ViolationOversized, PacketType: pt, Size: size, Limit: g.lim.maxPacket}
	}
	if err := g.fill(size); err != nil {
		return err
	}
	raw := g.rbuf[g.rpos : g.rpos+size : g.rpos+size]
	g.rpos += size
	if pt != publishType {
		g.out = raw
		return nil
	}
	out, err := g.checkPublish(raw, hl)
	if err != nil {
		return err
	}
	g.out = out
	return nil
}

// fill makes at least n unconsumed bytes available in rbuf, growing it
// to n at most (callers bound n by the packet size limit).
func (g *guardConn) fill(n int) error {
	if g.rend-g.rpos >= n {
		return nil
	}
	if len(g.rbuf)-g.rpos < n {
		if len(g.rbuf) < n {
			grown := make([]byte, n)
			g.rend = copy(grown, g.rbuf[g.rpos:g.rend])
			g.rbuf = grown
		} else {
			g.rend = copy(g.rbuf, g.rbuf[g.rpos:g.rend])
		}
		g.rpos = 0
	}
	for g.rend-g.rpos < n {
		m, err := g.Conn.Read(g.rbuf[g.rend:])
		g.rend += m
		if err != nil && g.rend-g.rpos < n {
			return err
		}
	}
	return nil
}
