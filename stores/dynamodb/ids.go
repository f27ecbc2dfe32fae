package dynamodb

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"sync"
	"time"
)

// An outbox record's sort key is its sequence: 19 decimal digits of Unix
// nanoseconds followed by 16 hex digits that name the Store that persisted
// it. Each Store hands out strictly increasing nanoseconds (the clock's,
// or one more than its last when the clock did not move), so one
// process's records keep their persist order, and records of different
// processes order by time, their ties by the tag. The tag is random per
// Store: two Stores would need the same nanosecond and the same 64-bit tag
// to clash. No counter item is written, so a persist costs only its
// records' writes (the README compares this with a counter per partition).
//
// A record ID the store makes names the item directly: "dd-", the sort
// key, "-" and the partition in unpadded base64url. Complete and Replay
// find the item without a lookup, and such an ID needs no index item.
//
// An ID the caller chose is kept as it is: an index item (pk "i|" + ID)
// points at the record and makes the ID unique across partitions.
//
// A DLQ entry ID the store makes is "dq-" and the entry's sequence number
// from the DLQ's counter as 16 hex digits; a caller's entry ID gets an
// index item the same way.
const (
	recordIDPrefix = "dd-"
	dlqIDPrefix    = "dq-"
	skLen          = 19 + 16
)

// outboxMetaSK is the sort key of a partition's fence item and of index
// items; it sorts before every record's.
const outboxMetaSK = "#"

// Key prefixes of the partition key.
const (
	pkPartition = "p|" // records and the partition's fence
	pkIndex     = "i|" // caller IDs
	pkDLQEntry  = "e"  // every DLQ entry
	pkDLQCount  = "c"  // the DLQ's sequence counter
)

// sequencer makes the sort keys of one Store.
type sequencer struct {
	tag  uint64
	mu   sync.Mutex
	last int64
}

// next returns n strictly increasing sort keys, not before now.
func (q *sequencer) next(now time.Time, n int) []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := make([]string, n)
	for i := range out {
		q.last = max(now.UnixNano(), q.last+1)
		out[i] = formatSK(q.last, q.tag)
	}
	return out
}

func formatSK(nanos int64, tag uint64) string {
	b := make([]byte, 0, skLen)
	b = fmt.Appendf(b, "%019d", nanos)
	return string(appendHex16(b, tag))
}

// validSK reports whether sk has the form formatSK makes.
func validSK(sk string) bool {
	if len(sk) != skLen {
		return false
	}
	for i := range 19 {
		if sk[i] < '0' || sk[i] > '9' {
			return false
		}
	}
	_, ok := parseHex16(sk[19:])
	return ok
}

// formatRecordID returns the ID of the record at sort key sk of partition.
func formatRecordID(partition, sk string) string {
	b := make([]byte, 0, len(recordIDPrefix)+skLen+1+base64.RawURLEncoding.EncodedLen(len(partition)))
	b = append(b, recordIDPrefix...)
	b = append(b, sk...)
	b = append(b, '-')
	b = base64.RawURLEncoding.AppendEncode(b, []byte(partition))
	return string(b)
}

// parseRecordID returns the partition and sort key a store-made ID names;
// ok is false for any other string. It accepts exactly what
// formatRecordID makes, so no two strings name the same record.
func parseRecordID(id string) (partition, sk string, ok bool) {
	const head = len(recordIDPrefix) + skLen
	if len(id) < head+2 || id[:len(recordIDPrefix)] != recordIDPrefix || id[head] != '-' || !validSK(id[len(recordIDPrefix):head]) {
		return "", "", false
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(id[head+1:])
	if err != nil || len(raw) == 0 || base64.RawURLEncoding.EncodeToString(raw) != id[head+1:] {
		return "", "", false
	}
	return string(raw), id[len(recordIDPrefix):head], true
}

// formatDLQID returns the ID of DLQ entry seq.
func formatDLQID(seq int64) string {
	return string(appendHex16([]byte(dlqIDPrefix), uint64(seq)))
}

// parseDLQID returns the sequence number a store-made DLQ ID names.
func parseDLQID(id string) (int64, bool) {
	if len(id) != len(dlqIDPrefix)+16 || id[:len(dlqIDPrefix)] != dlqIDPrefix {
		return 0, false
	}
	v, ok := parseHex16(id[len(dlqIDPrefix):])
	if !ok || v == 0 || v > 1<<62 {
		return 0, false
	}
	return int64(v), true
}

func appendHex16(b []byte, v uint64) []byte {
	var raw [8]byte
	binary.BigEndian.PutUint64(raw[:], v)
	return hex.AppendEncode(b, raw[:])
}

// parseHex16 accepts 16 lower-case hex digits only.
func parseHex16(h string) (uint64, bool) {
	if len(h) != 16 {
		return 0, false
	}
	var v uint64
	for i := range len(h) {
		c := h[i]
		switch {
		case '0' <= c && c <= '9':
			v = v<<4 | uint64(c-'0')
		case 'a' <= c && c <= 'f':
			v = v<<4 | uint64(c-'a'+10)
		default:
			return 0, false
		}
	}
	return v, true
}
