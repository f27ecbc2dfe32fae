package dynamodb

import (
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
	attrPayload    = "pl" // binary; absent when empty
)

// putEnvelope adds env's attributes to it. DynamoDB copies the payload
// while serialising the request, so lending the backing array is safe.
func putEnvelope(it item, env *messaging.Envelope) {
	it[attrEnvID] = avS(env.ID)
	it[attrSubject] = avS(env.Subject)
	if h := encodeHeaders(env.Headers); h != nil {
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
	env.SetPayload(getB(it, attrPayload))
	return env, nil
}
