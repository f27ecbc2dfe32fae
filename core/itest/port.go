package itest

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"testing"
)

// FreePort returns a 127.0.0.1 TCP port that was free a moment ago and
// that no other call in this test process returned, for a server the test
// starts later (a child process, an emulator, a listener that must come
// back on the same port after a restart).
//
// It does not ask the kernel for port 0. Those ports come from the
// ephemeral range, which every outgoing connection of every process also
// draws from: between the moment a test closes its probe and the moment
// its server binds, a connection to a broker may take the port, and a
// second bind(0) in the same process may hand it out again (2,000 draws
// repeated about 270 times here). FreePort picks from the 10,000 ports
// below the ephemeral range instead, which only explicit binds use,
// walking them in order from a start that depends on the process id so
// that parallel test binaries begin far apart, and checks each is free.
func FreePort(t testing.TB) int {
	t.Helper()
	p, err := ports.next()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// FreeAddr is FreePort as a "127.0.0.1:PORT" address.
func FreeAddr(t testing.TB) string {
	t.Helper()
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(FreePort(t)))
}

// ReservedPorts are ports inside FreePort's range that the project's
// suites bind while other packages' tests run, so finding them free
// proves nothing: the Erlang distribution ports of the shared RabbitMQ
// node and of the second node the AMQP 0-9-1 fault tests start
// (scripts/rabbitmq-second-node.sh). FreePort never returns them.
func ReservedPorts() []int { return []int{25672, 25673} }

// portAllocator hands out FreePort's ports. It is the one piece of
// process-wide state in this package, on purpose: a port is only safe
// to hand out if no other test of the same process holds it, so every
// caller must share one record of what was given.
type portAllocator struct {
	mu        sync.Mutex
	given     map[int]bool
	cursor    int
	low, high int
}

var ports portAllocator

func (a *portAllocator) next() (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.given == nil {
		a.given = map[int]bool{}
		for _, p := range ReservedPorts() {
			a.given[p] = true
		}
		a.low, a.high = fixedPortRange()
		a.cursor = a.low + os.Getpid()%(a.high-a.low)
	}
	for range a.high - a.low {
		p := a.cursor
		a.cursor++
		if a.cursor >= a.high {
			a.cursor = a.low
		}
		if a.given[p] {
			continue
		}
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			continue // someone else's
		}
		_ = l.Close()
		a.given[p] = true
		return p, nil
	}
	return 0, fmt.Errorf("itest: no free port left between %d and %d", a.low, a.high)
}

// fixedPortRange is where FreePort picks from: the 10,000 ports below the
// kernel's ephemeral range when there is room for them above 1024, else
// 20000-29999 (where a clash is as unlikely as a draw from 10,000).
func fixedPortRange() (low, high int) {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err == nil {
		var eph int
		if _, err := fmt.Sscan(string(b), &eph); err == nil && eph-10000 > 1024 {
			return eph - 10000, eph
		}
	}
	return 20000, 30000
}
