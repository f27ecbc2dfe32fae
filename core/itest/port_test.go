package itest

import (
	"net"
	"slices"
	"strconv"
	"testing"
)

// TestFreePortNeverRepeats: the ports of one test process are distinct,
// outside the kernel's ephemeral range and never a reserved one, so a
// server started or restarted later cannot find its port handed to
// another test of the same process. Drawn from bind(0), 2,000 ports
// repeated about 270 times.
func TestFreePortNeverRepeats(t *testing.T) {
	low, high := fixedPortRange()
	seen := map[int]bool{}
	for range 2000 {
		p := FreePort(t)
		if seen[p] {
			t.Fatalf("port %d returned twice", p)
		}
		if p < low || p >= high || slices.Contains(ReservedPorts(), p) {
			t.Fatalf("port %d outside %d-%d or reserved", p, low, high)
		}
		seen[p] = true
	}
}

// TestFreePortSkipsBusyPorts: a port someone listens on is never
// returned, even when it is the next one in line.
func TestFreePortSkipsBusyPorts(t *testing.T) {
	p := FreePort(t)
	busy, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p+1)))
	if err != nil {
		t.Skipf("port %d taken already: %v", p+1, err)
	}
	defer busy.Close()
	q := FreePort(t)
	if q == p+1 {
		t.Fatalf("FreePort returned %d, which is listened on", q)
	}
	l, err := net.Listen("tcp", FreeAddr(t))
	if err != nil {
		t.Fatalf("FreeAddr gave an address that cannot be bound: %v", err)
	}
	_ = l.Close()
}
