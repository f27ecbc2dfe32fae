package sqsio

import (
	"encoding/hex"
	"errors"

	"github.com/gobridge-oss/gobridge/tools/bench"
)

// BodyHeader is the length of the text stamp at the start of a body: the
// harness's binary stamp in hex. An SQS body must be text, so the binary
// stamp the other protocols carry as it is would not survive.
const BodyHeader = 2 * bench.HeaderSize

// ErrShortBody is returned by DecodeBody for a body shorter than its stamp.
var ErrShortBody = errors.New("sqsio: body shorter than its stamp")

// EncodeBody is s as a body of size characters (at least BodyHeader): the
// hex stamp, then the same letter padding as bench.Encode.
func EncodeBody(s bench.Stamp, size int) string {
	raw := bench.Encode(s, bench.HeaderSize+max(size-BodyHeader, 0))
	b := make([]byte, BodyHeader, BodyHeader+len(raw)-bench.HeaderSize)
	hex.Encode(b, raw[:bench.HeaderSize])
	return string(append(b, raw[bench.HeaderSize:]...))
}

// DecodeBody reads the stamp at the start of a body.
func DecodeBody(body string) (bench.Stamp, error) {
	if len(body) < BodyHeader {
		return bench.Stamp{}, ErrShortBody
	}
	var raw [bench.HeaderSize]byte
	if _, err := hex.Decode(raw[:], []byte(body[:BodyHeader])); err != nil {
		return bench.Stamp{}, err
	}
	return bench.Decode(raw[:])
}
