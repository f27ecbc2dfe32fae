package sqs

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
)

// isFIFO tells a FIFO queue by its URL or name.
func isFIFO(queue string) bool { return strings.HasSuffix(queue, ".fifo") }

// fifoIDValid reports whether SQS accepts s as a group or deduplication
// id: 1 to 128 characters from printable ASCII.
func fifoIDValid(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// fifoIDs returns the group and deduplication ids of env for a FIFO
// queue; dedup is nil with content-based deduplication.
func (c FIFOConfig) ids(env *messaging.Envelope) (group, dedup *string, err error) {
	g, ok := env.HeaderString(c.GroupHeader)
	if !ok || g == "" {
		g = c.DefaultGroup
	}
	if g == "" {
		return nil, nil, fault.ErrInvalidPayload.WithMessage("sqs: no " + c.GroupHeader + " header for the FIFO group and no fifo.default_group")
	}
	if !fifoIDValid(g) {
		g = hashID(g)
	}
	if c.Deduplication == DedupContent {
		return aws.String(g), nil, nil
	}
	d, ok := env.HeaderString(messaging.HeaderDedupID)
	if !ok || d == "" {
		d = env.ID
	}
	if !fifoIDValid(d) {
		d = hashID(d)
	}
	return aws.String(g), aws.String(d), nil
}

// hashID turns any string into a valid id: its SHA-256 in hex.
func hashID(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
