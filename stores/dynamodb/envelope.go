package dynamodb

import (
	"bytes"
	"compress/flate"
	"errors"
	"io"
	"sync"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/headerjson"
	"github.com/gobridge-oss/gobridge/core/messaging"
)

// Envelope attributes, shared by outbox records and DLQ entries. Names
// are short on purpose: DynamoDB bills attribute names as item bytes.
const (
	attrEnvID      = "ei" // envelope ID
	attrSubject    = "su"
	attrHeaders    = "hd" // JSON text (core/headerjson); absent when none
	attrEnvCreated = "ec" // Unix ns
	attrEnvExpires = "ee" // Unix ns; absent without expiry
	attrPayload    = "pl" // binary; absent when empty or deflated
	attrDeflated   = "pz" // the payload, deflated (RFC 1951)
)

// Payload compression: DynamoDB bills every write of an item by its
// started KiB, so the payload of an item over 1 KiB is stored deflated
// when that makes the item cost fewer units. A 1 KiB JSON payload that
// deflates to 400 bytes halves what each write of its record costs; an
// item within 1 KiB is never compressed, since it costs one unit anyway
// and deflating costs tens of microseconds of CPU.
const (
	billingUnit = 1024
	maxInflated = 64 << 20 // bounds what a stored payload may inflate to
)

var deflaters = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, flate.BestSpeed)
	return w
}}

// shrink stores the payload of it deflated when that lowers the write
// units of the item.
func shrink(it item) {
	p := getB(it, attrPayload)
	size := itemBytes(it)
	if len(p) == 0 || size <= billingUnit {
		return
	}
	z := deflate(p)
	if z == nil {
		return
	}
	smaller := size - len(p) - len(attrPayload) + len(z) + len(attrDeflated)
	if (smaller+billingUnit-1)/billingUnit < (size+billingUnit-1)/billingUnit {
		delete(it, attrPayload)
		it[attrDeflated] = avB(z)
	}
}

// deflate returns p deflated, or nil when it does not get smaller.
func deflate(p []byte) []byte {
	var buf bytes.Buffer
	buf.Grow(len(p) / 2)
	w := deflaters.Get().(*flate.Writer)
	defer deflaters.Put(w)
	w.Reset(&buf)
	if _, err := w.Write(p); err != nil {
		return nil
	}
	if err := w.Close(); err != nil || buf.Len() >= len(p) {
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

// putEnvelope adds env's attributes to it. DynamoDB copies the payload
// while serialising the request, so lending the backing array is safe.
func putEnvelope(it item, env *messaging.Envelope) {
	it[attrEnvID] = avS(env.ID)
	it[attrSubject] = avS(env.Subject)
	if h := headerjson.Encode(env.Headers); h != nil {
		it[attrHeaders] = avS(string(h))
	}
	it[attrEnvCreated] = avTime(env.CreatedAt)
	if !env.ExpiresAt.IsZero() {
		it[attrEnvExpires] = avTime(env.ExpiresAt)
	}
	if p := env.PayloadView(); len(p) > 0 {
		it[attrPayload] = avB(p)
	}
}

// envelopeOf rebuilds the envelope of an item; it adopts the payload,
// which the SDK decoded into a fresh slice.
func envelopeOf(it item) (*messaging.Envelope, error) {
	h, err := headerjson.Decode([]byte(getS(it, attrHeaders)))
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
