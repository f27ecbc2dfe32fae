package amqp091

import (
	"net"
	"net/url"
	"sync"
	"testing"
)

// tcpProxy forwards TCP connections from a local port to the broker. cut
// severs every forwarded connection and refuses new ones (the port is
// closed), as a broker outage would; restore listens on the same port
// again. silence drops everything both ways while keeping the connections
// open, as a network partition would. It lets the tests take the broker
// away from the code under test without touching the shared broker.
type tcpProxy struct {
	t      testing.TB
	target string
	addr   string
	wg     sync.WaitGroup // accept loops and copiers

	mu     sync.Mutex
	ln     net.Listener // nil while cut
	conns  map[net.Conn]struct{}
	silent bool
}

// newProxy starts a proxy to the broker of brokerURL; it is stopped when
// the test ends.
func newProxy(t testing.TB) *tcpProxy {
	t.Helper()
	u, err := url.Parse(brokerURL())
	if err != nil {
		t.Fatal(err)
	}
	target := u.Host
	if u.Port() == "" {
		target = net.JoinHostPort(u.Hostname(), "5672")
	}
	p := &tcpProxy{t: t, target: target, conns: map[net.Conn]struct{}{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.addr = ln.Addr().String()
	p.serve(ln)
	t.Cleanup(func() {
		p.cut()
		p.wg.Wait()
	})
	return p
}

// url is the broker URL with the proxy in its place.
func (p *tcpProxy) url() string {
	u, _ := url.Parse(brokerURL())
	u.Host = p.addr
	return u.String()
}

func (p *tcpProxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.forward(c)
		}
	}()
}

// forward connects c to the broker and copies both ways until either side
// closes or the proxy is cut.
func (p *tcpProxy) forward(c net.Conn) {
	b, err := net.Dial("tcp", p.target)
	if err != nil {
		_ = c.Close()
		return
	}
	p.mu.Lock()
	if p.ln == nil { // cut meanwhile
		p.mu.Unlock()
		_ = c.Close()
		_ = b.Close()
		return
	}
	p.conns[c], p.conns[b] = struct{}{}, struct{}{}
	p.mu.Unlock()
	pipe := func(dst, src net.Conn) {
		defer p.wg.Done()
		buf := make([]byte, 32<<10)
		for {
			n, err := src.Read(buf)
			if n > 0 && !p.isSilent() {
				if _, werr := dst.Write(buf[:n]); werr != nil {
					break
				}
			}
			if err != nil {
				break
			}
		}
		_ = dst.Close()
		_ = src.Close()
		p.mu.Lock()
		delete(p.conns, dst)
		delete(p.conns, src)
		p.mu.Unlock()
	}
	p.wg.Add(2)
	go pipe(b, c)
	go pipe(c, b)
}

// silence drops every byte both ways from now on; the connections stay
// open.
func (p *tcpProxy) silence() {
	p.mu.Lock()
	p.silent = true
	p.mu.Unlock()
}

func (p *tcpProxy) isSilent() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.silent
}

// cut closes the listening port and every forwarded connection.
func (p *tcpProxy) cut() {
	p.mu.Lock()
	ln := p.ln
	p.ln = nil
	conns := p.conns
	p.conns = map[net.Conn]struct{}{}
	p.mu.Unlock()
	if ln != nil {
		_ = ln.Close()
	}
	for c := range conns {
		_ = c.Close()
	}
}

// restore listens on the proxy's port again.
func (p *tcpProxy) restore() {
	p.t.Helper()
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Fatalf("proxy: listen on %s again: %v", p.addr, err)
	}
	p.serve(ln)
}
