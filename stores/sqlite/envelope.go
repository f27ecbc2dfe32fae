package sqlite

import (
	"database/sql"

	"github.com/gobridge-oss/gobridge/core/headerjson"
	"github.com/gobridge-oss/gobridge/core/messaging"
)

// envelopeCols is an envelope in its stored form: ID, subject, headers as
// JSON text, the two times and the payload as a BLOB (NULL for a nil
// payload).
type envelopeCols struct {
	id, subject      string
	headers          sql.NullString
	created, expires int64
	payload          []byte
}

func envelopeColsOf(env *messaging.Envelope) envelopeCols {
	c := envelopeCols{
		id:      env.ID,
		subject: env.Subject,
		created: encodeTime(env.CreatedAt),
		expires: encodeTime(env.ExpiresAt),
		// The driver copies the bytes while binding, so lending the
		// backing array is safe.
		payload: env.PayloadView(),
	}
	if h := headerjson.Encode(env.Headers); h != nil {
		c.headers = sql.NullString{String: string(h), Valid: true}
	}
	return c
}

// args returns the values bound for the envelope columns, in table order.
// They are plain driver values, so database/sql binds them without
// conversion.
func (c *envelopeCols) args() []any {
	var headers any
	if c.headers.Valid {
		headers = c.headers.String
	}
	return []any{c.id, c.subject, headers, c.created, c.expires, c.payload}
}

// dest returns the scan destinations matching args.
func (c *envelopeCols) dest() []any {
	return []any{&c.id, &c.subject, &c.headers, &c.created, &c.expires, &c.payload}
}

// envelope rebuilds the envelope. It adopts the scanned payload, which the
// database/sql layer already copied out of SQLite.
func (c *envelopeCols) envelope() (*messaging.Envelope, error) {
	h, err := headerjson.Decode([]byte(c.headers.String))
	if err != nil {
		return nil, err
	}
	env := &messaging.Envelope{
		ID:        c.id,
		Subject:   c.subject,
		Headers:   h,
		CreatedAt: decodeTime(c.created),
		ExpiresAt: decodeTime(c.expires),
	}
	env.SetPayload(c.payload)
	return env, nil
}
