package dynamodb

import (
	"bytes"
	"compress/flate"
	"errors"
	"io"
	"sync"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
)

// Envelope attributes, shared by outbox records and DLQ entries. Names
// are short on purpose: DynamoDB bills attribute names as item bytes.
const (
	attrEnvID      = "ei" // envelope ID
	attrSubject    = "su"
	attrHeaders    = "hd" // JSON text, see headers.go; absent when none
	attrEnvCreated = "ec" // Unix ns
	attrEnvExpires = "ee" // Unix ns; absent without expiry
	attrPayload    = "pl" // binary; absent when empty or deflated
	attrDeflated   = "pz" // the payload, deflated (RFC 1951)
)

// Payload compression: a payload of at least compressMin bytes is stored
// deflated when that saves at least an eighth of it. DynamoDB bills
// writes by the started KiB of the item, so a 1 KiB JSON payload that
// deflates to 400 bytes halves what every write of its record costs.
const (
	compressMin = 256
	maxInflated = 64 << 20 // bounds what a stored payload may inflate to
)

var deflaters = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, flate.BestSpeed)
	return w
}}

// deflate returns p deflated, or nil when that does not pay.
func deflate(p []byte) []byte {
	if len(p) < compressMin {
		return nil
	}
	var buf bytes.Buffer
	buf.Grow(len(p) / 2)
	w := deflaters.Get().(*flate.Writer)
	defer deflaters.Put(w)
	w.Reset(&buf)
	if _, err := w.Write(p); err != nil {
		return nil
	}
	if err := w.Close(); err != nil || buf.Len() > len(p)-len(p)/8 {
		return nil
	}
	return buf.Bytes()
}

func inflate(z []byte) ([]byte, error) {
	r := flate.NewReader(bytes.NewReader(z))
	defer r.Close()
	p, err := io.ReadAll(io.LimitReader(r, maxInflated+1))
	if err == nil && len(p) > maxInflated {
		err = errors.New("inflates beyond 64 MiB")
	}
	return p, err
}

// putEnvelope adds env's attributes to it, the payload deflated when
// compress is set and that pays. DynamoDB copies the payload while
// serialising the request, so lending the backing array is safe.
func putEnvelope(it item, env *messaging.Envelope, compress bool) {
	it[attrEnvID] = avS(env.ID)
	it[attrSubject] = avS(env.Subject)
	if h := encodeHeaders(env.Headers); h != nil {
		it[attrHeaders] = avS(string(h))
	}
	it[attrEnvCreated] = avTime(env.CreatedAt)
	if !env.ExpiresAt.IsZero() {
		it[attrEnvExpires] = avTime(env.ExpiresAt)
	}
	p := env.PayloadView()
	switch {
	case len(p) == 0:
	case compress:
		if z := deflate(p); z != nil {
			it[attrDeflated] = avB(z)
			break
		}
		fallthrough
	default:
		it[attrPayload] = avB(p)
	}
}

// envelopeOf rebuilds the envelope of an item; it adopts the payload,
// which the SDK decoded into a fresh slice.
func envelopeOf(it item) (*messaging.Envelope, error) {
	h, err := decodeHeaders([]byte(getS(it, attrHeaders)))
	if err != nil {
		return nil, fault.ErrInternal.WithMessage("dynamodb store: stored headers do not decode").Wrap(err)
	}
	env := &messaging.Envelope{
		ID:        getS(it, attrEnvID),
		Subject:   getS(it, attrSubject),
		Headers:   h,
		CreatedAt: getTime(it, attrEnvCreated),
		ExpiresAt: getTime(it, attrEnvExpires),
	}
	p := getB(it, attrPayload)
	if z := getB(it, attrDeflated); z != nil {
		if p, err = inflate(z); err != nil {
			return nil, fault.ErrInternal.WithMessage("dynamodb store: stored payload does not inflate").Wrap(err)
		}
	}
	env.SetPayload(p)
	return env, nil
}
