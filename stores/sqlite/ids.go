package sqlite

import (
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
	"time"
)

// newRecordID returns a version 7 UUID: 48 bits of Unix milliseconds
// followed by random bits. IDs made close together in time sort close
// together, so the unique index on outbox IDs grows at its right edge
// instead of dirtying a random page per insert, which keeps each group
// commit small.
func newRecordID(now time.Time) string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[0:8], uint64(now.UnixMilli())<<16|rand.Uint64()&0xffff)
	binary.BigEndian.PutUint64(b[8:16], rand.Uint64())
	b[6] = (b[6] & 0x0f) | 0x70 // version 7
	b[8] = (b[8] & 0x3f) | 0x80 // RFC 9562 variant

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
