package service

import "github.com/gobridge-oss/gobridge/core/ports"

// streamLog returns the store that keeps the SSE senders' replay logs:
// the outbox store when it can hold them, else the DLQ store, else the
// lease store; nil when none can (the senders then decide, by their
// replay_log setting, to keep their logs in memory or to refuse).
func (s *storeSet) streamLog() ports.StreamLog {
	if s == nil {
		return nil
	}
	for _, v := range []any{s.outbox, s.dlq, s.lease} {
		if l, ok := v.(ports.StreamLog); ok {
			return l
		}
	}
	return nil
}
