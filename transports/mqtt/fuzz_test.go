package mqtt

import (
	"bytes"
	"errors"
	"testing"

	"github.com/eclipse/paho.golang/packets"
)

// FuzzIngressGuard feeds arbitrary bytes to the guard as if a broker sent
// them. Whatever it lets through must stay within the size limit; every
// PUBLISH it lets through must be readable by paho with at most one user
// property above the cap; and guarding the output again must change
// nothing.
func FuzzIngressGuard(f *testing.F) {
	f.Add(publish1("a/b", props(userProp("k", "v")), "hello"))
	f.Add(pkt(0x20, []byte{0, 0, 0}))
	f.Add([]byte{0x30, 0xff, 0xff, 0xff, 0x7f})
	f.Add(publish1("t", props(userProp("a", "1"), userProp("b", "2"), userProp("c", "3"), userProp("d", "4")), "x"))
	lim := guardLimits{maxPacket: 1024, maxUserProps: 2}
	f.Fuzz(func(t *testing.T, data []byte) {
		g := newGuardConn(&streamConn{r: bytes.NewReader(data), chunk: 7}, lim, nil)
		var passed []byte
		for {
			if err := g.next(); err != nil {
				if v, ok := errors.AsType[*IngressViolation](err); ok && v.Error() == "" {
					t.Fatal("empty violation message")
				}
				break
			}
			out := g.out
			if len(out) > lim.maxPacket {
				t.Fatalf("passed a packet of %d bytes, limit %d", len(out), lim.maxPacket)
			}
			if out[0]>>4 == publishType {
				cp, err := packets.ReadPacket(bytes.NewReader(out))
				if err != nil {
					t.Fatalf("paho cannot read a PUBLISH the guard passed: %v\n%x", err, out)
				}
				if n := len(cp.Content.(*packets.Publish).Properties.User); n > lim.maxUserProps+1 {
					t.Fatalf("passed %d user properties, cap %d", n, lim.maxUserProps)
				}
			}
			passed = append(passed, out...)
			g.out = nil
		}
		again := newGuardConn(&streamConn{r: bytes.NewReader(passed)}, lim, nil)
		var second []byte
		for again.next() == nil {
			second = append(second, again.out...)
			again.out = nil
		}
		if !bytes.Equal(passed, second) {
			t.Fatalf("guarding the output again changed it:\n%x\n%x", passed, second)
		}
	})
}
