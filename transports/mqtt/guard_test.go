package mqtt

import (
	"bytes"
	"errors"
	"io"
	"net"
	"testing"

	"github.com/eclipse/paho.golang/packets"
	"github.com/google/go-cmp/cmp"
)

// streamConn is a net.Conn whose reads come from r, at most chunk bytes
// at a time when chunk > 0. Only Read is used by the guard.
type streamConn struct {
	net.Conn
	r     io.Reader
	chunk int
}

func (c *streamConn) Read(p []byte) (int, error) {
	if c.chunk > 0 && len(p) > c.chunk {
		p = p[:c.chunk]
	}
	return c.r.Read(p)
}

// pkt builds a raw packet: first byte, then the body with its Remaining
// Length.
func pkt(first byte, body ...[]byte) []byte {
	b := bytes.Join(body, nil)
	return append(appendVarint([]byte{first}, len(b)), b...)
}

func str(s string) []byte { return append([]byte{byte(len(s) >> 8), byte(len(s))}, s...) }

func props(ps ...[]byte) []byte {
	b := bytes.Join(ps, nil)
	return append(appendVarint(nil, len(b)), b...)
}

func userProp(k, v string) []byte {
	return append(append([]byte{propUserProperty}, str(k)...), str(v)...)
}

// publish1 is a QoS 1 PUBLISH to topic with packet id 7.
func publish1(topic string, pr []byte, payload string) []byte {
	return pkt(0x32, str(topic), []byte{0, 7}, pr, []byte(payload))
}

func guardAll(t *testing.T, in []byte, lim guardLimits, chunk int) ([]byte, error, int) {
	t.Helper()
	var reported int
	g := newGuardConn(&streamConn{r: bytes.NewReader(in), chunk: chunk}, lim, func(*IngressViolation) { reported++ })
	out, err := io.ReadAll(g)
	return out, err, reported
}

func TestGuardPassesAndRefuses(t *testing.T) {
	lim := guardLimits{maxPacket: 256, maxUserProps: 2}
	connack := pkt(0x20, []byte{0, 0, 0})
	pub := publish1("a/b", props(userProp("k", "v")), "hello")
	big := publish1("a/b", props(), string(make([]byte, 300)))
	tests := []struct {
		name     string
		in       []byte
		wantOut  []byte
		wantKind ViolationKind
	}{
		{"connack and publish pass unchanged", append(append([]byte{}, connack...), pub...), append(append([]byte{}, connack...), pub...), ""},
		{"pingresp", []byte{0xD0, 0}, []byte{0xD0, 0}, ""},
		{"qos0 publish", pkt(0x30, str("t"), props(), []byte("x")), pkt(0x30, str("t"), props(), []byte("x")), ""},
		{"oversized", big, nil, ViolationOversized},
		{"oversized length alone", []byte{0x30, 0xff, 0xff, 0xff, 0x7f}, nil, ViolationOversized},
		{"five length bytes", []byte{0x30, 0xff, 0xff, 0xff, 0xff, 0x01}, nil, ViolationMalformed},
		{"non-minimal length", []byte{0xD0, 0x80, 0x00}, nil, ViolationMalformed},
		{"reserved type", []byte{0x00, 0x00}, nil, ViolationMalformed},
		{"qos 3", pkt(0x36, str("t"), []byte{0, 1}, props()), nil, ViolationMalformed},
		{"dup on qos 0", pkt(0x38, str("t"), props()), nil, ViolationMalformed},
		{"topic past the end", pkt(0x30, []byte{0, 50}, []byte("t")), nil, ViolationMalformed},
		{"empty topic", pkt(0x30, str(""), props()), nil, ViolationMalformed},
		{"packet id 0", pkt(0x32, str("t"), []byte{0, 0}, props()), nil, ViolationMalformed},
		{"properties past the end", pkt(0x30, str("t"), []byte{20, 1}), nil, ViolationMalformed},
		{"topic alias", publish1("t", props([]byte{propTopicAlias, 0, 1}), ""), nil, ViolationMalformed},
		{"unknown property", publish1("t", props([]byte{0x11, 0, 0, 0, 1}), ""), nil, ViolationMalformed},
		{"twice the same property", publish1("t", props([]byte{propPayloadFormat, 1, propPayloadFormat, 0}), ""), nil, ViolationMalformed},
		{"truncated user property", publish1("t", props([]byte{propUserProperty, 0, 5, 'a'}), ""), nil, ViolationMalformed},
	}
	for _, tt := range tests {
		for _, chunk := range []int{0, 1, 3} {
			out, err, reported := guardAll(t, tt.in, lim, chunk)
			if tt.wantKind == "" {
				if err != nil {
					t.Errorf("%s (chunk %d): %v", tt.name, chunk, err)
				}
				if diff := cmp.Diff(tt.wantOut, out); diff != "" {
					t.Errorf("%s (chunk %d): output (-want +got):\n%s", tt.name, chunk, diff)
				}
				continue
			}
			v, ok := errors.AsType[*IngressViolation](err)
			if !ok || v.Kind != tt.wantKind || reported != 1 {
				t.Errorf("%s (chunk %d): err %v (reported %d times), want one %s", tt.name, chunk, err, reported, tt.wantKind)
			}
		}
	}
}

func TestGuardTrimsUserProperties(t *testing.T) {
	lim := guardLimits{maxPacket: 4096, maxUserProps: 2}
	var ups [][]byte
	for i := range 10 {
		ups = append(ups, userProp("k", string(rune('a'+i))))
	}
	ups = append(ups, []byte{propContentType, 0, 4, 't', 'e', 'x', 't'})
	in := publish1("a/b", props(ups...), "payload")
	out, err, _ := guardAll(t, in, lim, 0)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := packets.ReadPacket(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("paho cannot read the trimmed packet: %v", err)
	}
	p := cp.Content.(*packets.Publish)
	var got []string
	for _, u := range p.Properties.User {
		got = append(got, u.Value)
	}
	want := struct {
		Topic, Payload, ContentType string
		ID                          uint16
		Users                       []string
	}{"a/b", "payload", "text", 7, []string{"a", "b", "c"}}
	gotV := want
	gotV.Topic, gotV.Payload, gotV.ContentType, gotV.ID, gotV.Users = p.Topic, string(p.Payload), p.Properties.ContentType, p.PacketID, got
	if diff := cmp.Diff(want, gotV); diff != "" {
		t.Errorf("trimmed publish (-want +got):\n%s", diff)
	}
}

func TestGuardLatchesAndKeepsNetworkErrors(t *testing.T) {
	lim := guardLimits{maxPacket: 64, maxUserProps: 2}
	g := newGuardConn(&streamConn{r: bytes.NewReader([]byte{0x00, 0x00, 0xD0, 0x00})}, lim, nil)
	buf := make([]byte, 8)
	_, err1 := g.Read(buf)
	_, err2 := g.Read(buf)
	if _, ok := errors.AsType[*IngressViolation](err1); !ok || err2 != err1 {
		t.Errorf("reads after a violation: %v then %v; want the same violation twice", err1, err2)
	}
	// A network error mid-packet is returned as is and the bytes read so
	// far are kept for the next read.
	r := &errOnce{data: []byte{0xD0, 0x00}}
	g = newGuardConn(&streamConn{r: r, chunk: 1}, lim, nil)
	if _, err := g.Read(buf); !errors.Is(err, errTransient) {
		t.Fatalf("first read: %v, want the network error", err)
	}
	n, err := g.Read(buf)
	if err != nil || !bytes.Equal(buf[:n], []byte{0xD0, 0x00}) {
		t.Errorf("second read: %x, %v; want the PINGRESP", buf[:n], err)
	}
}

var errTransient = errors.New("i/o timeout")

// errOnce returns its first byte, then an error once, then the rest.
type errOnce struct {
	data   []byte
	failed bool
}

func (e *errOnce) Read(p []byte) (int, error) {
	if len(e.data) == 2 || e.failed {
		if len(e.data) == 0 {
			return 0, io.EOF
		}
		n := copy(p[:1], e.data)
		e.data = e.data[n:]
		return n, nil
	}
	e.failed = true
	return 0, errTransient
}
