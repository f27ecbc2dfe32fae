package runtime

import (
	"hash/maphash"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// trackKey identifies one source message in the attempt tracker across its
// redeliveries. It is either the source's own delivery key, or the message
// ID with a hash of the subject and payload as received: a producer that
// reuses an ID for different content gets a different key, so one message
// never inherits another's retry count or fan-out progress. The zero key
// means the message cannot be recognised when it comes back and is not
// tracked.
type trackKey struct {
	id  string
	sum uint64
}

// key returns the tracker key of the delivery in hand, computing it on
// first use: the hash is paid only by messages that fail or meet a
// tracker that is not empty.
func (w *worker) key() trackKey {
	if w.keyed {
		return w.tk
	}
	w.keyed = true
	w.tk = trackKey{}
	if dk, ok := w.d.(ports.DeliveryKeyer); ok {
		if k := dk.DeliveryKey(); k != "" {
			w.tk = trackKey{id: k}
			return w.tk
		}
	}
	if w.origID == "" {
		return w.tk
	}
	var h maphash.Hash
	h.SetSeed(w.rn.seed)
	h.WriteString(w.origSubj)
	h.WriteByte(0)
	h.Write(w.origBody)
	w.tk = trackKey{id: w.origID, sum: h.Sum64()}
	return w.tk
}
