package bench

import (
	"encoding/binary"
	"errors"
	"time"
)

// HeaderSize is the number of leading payload bytes the harness uses: the
// run ID, the sequence number and the publish time, 8 bytes each, big
// endian. Whatever follows is padding up to the message size.
const HeaderSize = 24

// Stamp is what a load generator writes into each payload and a sink reads
// back.
type Stamp struct {
	Run  uint64    // the run the message belongs to; a sink ignores others
	Seq  uint64    // 0 .. N-1
	Sent time.Time // when the load generator published it
}

// ErrShortPayload is returned by Decode for a payload shorter than
// HeaderSize.
var ErrShortPayload = errors.New("bench: payload shorter than its stamp")

// Encode writes s into a fresh payload of size bytes (at least HeaderSize);
// the padding is a repeating letter pattern so that it does not compress
// to nothing on a wire that compresses.
func Encode(s Stamp, size int) []byte {
	b := make([]byte, max(size, HeaderSize))
	EncodeInto(b, s)
	for i := HeaderSize; i < len(b); i++ {
		b[i] = 'a' + byte(i%26)
	}
	return b
}

// EncodeInto overwrites the stamp part of b (len(b) ≥ HeaderSize) and
// leaves the rest as it is, for a generator that reuses one buffer.
func EncodeInto(b []byte, s Stamp) {
	binary.BigEndian.PutUint64(b[0:8], s.Run)
	binary.BigEndian.PutUint64(b[8:16], s.Seq)
	binary.BigEndian.PutUint64(b[16:24], uint64(s.Sent.UnixNano()))
}

// Decode reads the stamp at the start of a payload.
func Decode(b []byte) (Stamp, error) {
	if len(b) < HeaderSize {
		return Stamp{}, ErrShortPayload
	}
	return Stamp{
		Run:  binary.BigEndian.Uint64(b[0:8]),
		Seq:  binary.BigEndian.Uint64(b[8:16]),
		Sent: time.Unix(0, int64(binary.BigEndian.Uint64(b[16:24]))),
	}, nil
}
