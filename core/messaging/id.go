package messaging

import (
	"encoding/hex"
	"math/rand/v2"
)

// NewID returns a random identifier formatted as a version 4 UUID.
//
// The randomness comes from the runtime's per-thread generator, which is fast
// and collision-resistant but not suitable for secrets. Message identifiers
// only need to be unique.
func NewID() string {
	var b [16]byte
	hi, lo := rand.Uint64(), rand.Uint64()
	for i := range 8 {
		b[i] = byte(hi >> (8 * i))
		b[8+i] = byte(lo >> (8 * i))
	}
	b[6] = (b[6] & 0x0f) | 0x40 // version 4
	b[8] = (b[8] & 0x3f) | 0x80 // RFC 4122 variant

	var out [36]byte
	hex.Encode(out[0:8], b[0:4])
	out[8] = '-'
	hex.Encode(out[9:13], b[4:6])
	out[13] = '-'
	hex.Encode(out[14:18], b[6:8])
	out[18] = '-'
	hex.Encode(out[19:23], b[8:10])
	out[23] = '-'
	hex.Encode(out[24:36], b[10:16])
	return string(out[:])
}
