package amqp091

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"net/url"
	"strconv"
)

// HeaderRetrySignature carries the HMAC-SHA256 with which a receiver signs
// the retry headers of the copy it hands to its retry exchange. Only a
// copy whose signature checks out is believed: the retry count, routing
// key and exchange of any other message are the producer's and are
// ignored.
const HeaderRetrySignature = "gobridge.retry-sig"

// retryKeyContext separates the key derived from the connection password
// from any other use of that password.
const retryKeyContext = "gobridge amqp091 retry signing v1"

// retryStamp is what a receiver remembers of a message across a delayed
// retry: how many retries it had, and where it was first published.
type retryStamp struct {
	count      int
	routingKey string
	exchange   string
}

// retrySigner signs and checks retry stamps for one queue.
type retrySigner struct {
	key   []byte
	queue string
}

// newRetrySigner builds the signer of a receiver on queue. The key is the
// configured signing key; without one it is derived from the password of
// the connection URL, so that every bridge process consuming the queue
// with the same credentials (and the same process after a restart) agrees
// on it; a URL without a password gets a random key, good for this
// receiver's life only.
func newRetrySigner(signingKey, connURL, queue string) *retrySigner {
	s := &retrySigner{queue: queue}
	if signingKey != "" {
		s.key = []byte(signingKey)
		return s
	}
	if u, err := url.Parse(connURL); err == nil && u.User != nil {
		if pw, ok := u.User.Password(); ok && pw != "" {
			m := hmac.New(sha256.New, []byte(retryKeyContext))
			writeField(m, u.User.Username())
			writeField(m, pw)
			s.key = m.Sum(nil)
			return s
		}
	}
	s.key = make([]byte, 32)
	_, _ = rand.Read(s.key) // never fails (crypto/rand panics instead)
	return s
}

// sign returns the signature of st on the message with messageID and body.
func (s *retrySigner) sign(st retryStamp, messageID string, body []byte) string {
	m := hmac.New(sha256.New, s.key)
	writeField(m, s.queue)
	writeField(m, messageID)
	writeField(m, strconv.Itoa(st.count))
	writeField(m, st.routingKey)
	writeField(m, st.exchange)
	_ = binary.Write(m, binary.BigEndian, uint64(len(body)))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// verify reports whether sig is the signature of st on the message.
func (s *retrySigner) verify(st retryStamp, messageID string, body []byte, sig string) bool {
	if s == nil || sig == "" || st.count < 1 {
		return false
	}
	want := s.sign(st, messageID, body)
	return hmac.Equal([]byte(want), []byte(sig))
}

// writeField writes a length-prefixed field, so that no two different
// field lists hash alike.
func writeField(h hash.Hash, f string) {
	_ = binary.Write(h, binary.BigEndian, uint64(len(f)))
	h.Write([]byte(f))
}
