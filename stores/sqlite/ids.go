package sqlite

import (
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
)

// A record ID the store makes names the row directly: "ob-", the row's
// sequence number and a random salt, each as 16 hex digits. Looking it up
// is a primary-key seek, so the outbox needs no index over IDs, which
// made every insert cost a second B-tree write. SQLite may hand a sequence
// number out again once the newest rows were deleted; the salt, stored in
// the row, keeps such an ID from ever naming a later record.
//
// An ID the caller chose is kept as it is, in ext_id, behind a partial
// unique index that rows with store-made IDs never enter.
const (
	recordIDPrefix = "ob-"
	recordIDLen    = len(recordIDPrefix) + 16 + 1 + 16
)

// newSalt returns the salt for a new row.
func newSalt() int64 { return int64(rand.Uint64()) }

// formatRecordID returns the ID of the row seq with salt.
func formatRecordID(seq, salt int64) string {
	var b [recordIDLen]byte
	copy(b[:], recordIDPrefix)
	putHex16(b[len(recordIDPrefix):], uint64(seq))
	b[len(recordIDPrefix)+16] = '-'
	putHex16(b[len(recordIDPrefix)+17:], uint64(salt))
	return string(b[:])
}

func putHex16(dst []byte, v uint64) {
	var raw [8]byte
	binary.BigEndian.PutUint64(raw[:], v)
	hex.Encode(dst[:16], raw[:])
}

// parseRecordID returns the row and salt a store-made ID names; ok is
// false for any other string, which can only be a caller's ID. It accepts
// exactly what formatRecordID makes (lower-case digits only), so that no
// two strings name the same row.
func parseRecordID(id string) (seq, salt int64, ok bool) {
	if len(id) != recordIDLen || id[:len(recordIDPrefix)] != recordIDPrefix || id[len(recordIDPrefix)+16] != '-' {
		return 0, 0, false
	}
	s, ok1 := parseHex16(id[len(recordIDPrefix) : len(recordIDPrefix)+16])
	t, ok2 := parseHex16(id[len(recordIDPrefix)+17:])
	return int64(s), int64(t), ok1 && ok2
}

func parseHex16(h string) (uint64, bool) {
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

// recordKey is an ID prepared for the lookup statements: the row and salt
// for a store-made ID (NULL otherwise) and the ID itself for ext_id.
func recordKey(id string) []any {
	if seq, salt, ok := parseRecordID(id); ok {
		return []any{seq, salt, id}
	}
	return []any{nil, nil, id}
}
