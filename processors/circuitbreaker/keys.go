package circuitbreaker

import (
	"strconv"
	"strings"

	"github.com/gobridge-oss/gobridge/core/messaging"
)

// KeyExtractor returns the breaker key of a message. It must not modify
// the envelope and must accept a nil one.
type KeyExtractor func(env *messaging.Envelope) string

// MaxHeaderKeyLen caps the bytes of a header value used as a key; longer
// values are cut, so an oversized header cannot pin large strings in the
// breaker cache.
const MaxHeaderKeyLen = 256

// GlobalKey returns "global" for every message: one breaker for all.
func GlobalKey(*messaging.Envelope) string { return string(KeyGlobal) }

// SubjectKey returns the message's subject.
func SubjectKey(env *messaging.Envelope) string {
	if env == nil {
		return ""
	}
	return env.Subject
}

// HeaderKey returns an extractor that keys on the value of header name.
// String and byte-slice values are used as they are (cut at
// MaxHeaderKeyLen bytes), numbers and booleans in their decimal or
// "true"/"false" form. A missing header or a value of any other type gives
// the empty key, so such messages share one breaker.
func HeaderKey(name string) KeyExtractor {
	return func(env *messaging.Envelope) string {
		if env == nil {
			return ""
		}
		return headerKeyValue(env.Headers[name])
	}
}

func headerKeyValue(v any) string {
	var s string
	switch t := v.(type) {
	case string:
		s = t
	case []byte:
		return string(t[:min(len(t), MaxHeaderKeyLen)])
	case int:
		s = strconv.Itoa(t)
	case int64:
		s = strconv.FormatInt(t, 10)
	case int32:
		s = strconv.FormatInt(int64(t), 10)
	case uint:
		s = strconv.FormatUint(uint64(t), 10)
	case uint64:
		s = strconv.FormatUint(t, 10)
	case uint32:
		s = strconv.FormatUint(uint64(t), 10)
	case float64:
		s = strconv.FormatFloat(t, 'g', -1, 64)
	case bool:
		s = strconv.FormatBool(t)
	}
	if len(s) > MaxHeaderKeyLen {
		// Copy, so the cache does not keep the whole header alive.
		s = strings.Clone(s[:MaxHeaderKeyLen])
	}
	return s
}
