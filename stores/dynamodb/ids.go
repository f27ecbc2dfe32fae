package dynamodb

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
)

// An outbox record ID the store makes names the item directly: "dd-", the
// record's sequence number as 16 hex digits, "-" and the partition in
// unpadded base64url. Complete and Replay then find the item without a
// lookup, and such an ID needs no index item. Sequence numbers come from
// the partition's counter and are never handed out twice, so no two
// records get the same ID.
//
// An ID the caller chose is kept as it is: an index item (pk "i|" + ID)
// points at the record and makes the ID unique across partitions.
//
// A DLQ entry ID the store makes is "dq-" and the entry's sequence number
// as 16 hex digits; a caller's entry ID gets an index item the same way.
const (
	recordIDPrefix = "dd-"
	dlqIDPrefix    = "dq-"
)

// Key prefixes of the partition key.
const (
	pkPartition = "p|" // records and the partition's counter and fence
	pkIndex     = "i|" // caller IDs
	pkDLQEntry  = "e"  // every DLQ entry
	pkDLQCount  = "c"  // the DLQ's sequence counter
)

// formatRecordID returns the ID of record seq of partition.
func formatRecordID(partition string, seq int64) string {
	b := make([]byte, 0, len(recordIDPrefix)+17+base64.RawURLEncoding.EncodedLen(len(partition)))
	b = append(b, recordIDPrefix...)
	b = appendHex16(b, uint64(seq))
	b = append(b, '-')
	b = base64.RawURLEncoding.AppendEncode(b, []byte(partition))
	return string(b)
}

// parseRecordID returns the partition and sequence number a store-made ID
// names; ok is false for any other string. It accepts exactly what
// formatRecordID makes, so no two strings name the same record.
func parseRecordID(id string) (partition string, seq int64, ok bool) {
	const head = len(recordIDPrefix) + 16
	if len(id) < head+2 || id[:len(recordIDPrefix)] != recordIDPrefix || id[head] != '-' {
		return "", 0, false
	}
	v, ok := parseHex16(id[len(recordIDPrefix):head])
	if !ok || v == 0 || v > 1<<62 {
		return "", 0, false
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(id[head+1:])
	if err != nil || len(raw) == 0 || base64.RawURLEncoding.EncodeToString(raw) != id[head+1:] {
		return "", 0, false
	}
	return string(raw), int64(v), true
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
