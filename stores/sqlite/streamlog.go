package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// The store also holds stream logs (the SSE sender's replay log) in the
// tables stream_channel and stream_event (see the schema's step for
// them): per channel, the last sequence number given and the data bytes
// kept, and one row per kept event.
var _ ports.StreamLog = (*Store)(nil)

// AppendEvents stores events at the end of channel's log in one durable
// write, shared with other waiting writes, and returns the sequence
// number given to the first.
func (s *Store) AppendEvents(ctx context.Context, channel string, events [][]byte) (uint64, error) {
	at := encodeTime(s.clock.Now())
	var size int64
	for _, e := range events {
		size += int64(len(e))
	}
	var first uint64
	err := s.w.do(ctx, false, func(tx *writeTx) error {
		bg := context.Background()
		if len(events) == 0 {
			last, _, err := streamHead(bg, tx.conn, channel)
			first = last + 1
			return err
		}
		// One statement numbers the events, one stores them.
		var last int64
		if err := tx.conn.QueryRowContext(bg, `INSERT INTO stream_channel (channel, last_seq, bytes) VALUES (?1, ?2, ?3)
			ON CONFLICT (channel) DO UPDATE SET last_seq = last_seq + ?2, bytes = bytes + ?3
			RETURNING last_seq`, channel, len(events), size).Scan(&last); err != nil {
			return err
		}
		first = uint64(last) - uint64(len(events)) + 1
		for start := 0; start < len(events); start += appendRows {
			chunk := events[start:min(start+appendRows, len(events))]
			q := make([]byte, 0, 64+len(chunk)*14)
			q = append(q, "INSERT INTO stream_event (channel, seq, appended_at, data) VALUES "...)
			args := make([]any, 0, 4*len(chunk))
			for i, e := range chunk {
				if i > 0 {
					q = append(q, ',')
				}
				q = append(q, "(?,?,?,?)"...)
				if e == nil {
					e = []byte{} // data is NOT NULL
				}
				args = append(args, channel, int64(first)+int64(start+i), at, e)
			}
			if _, err := tx.conn.ExecContext(bg, string(q), args...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, opError("stream append", err)
	}
	return first, nil
}

// ReadEvents returns the kept events of channel after after, oldest
// first, at most limit (ports.DefaultStreamReadLimit when 0 or less).
func (s *Store) ReadEvents(ctx context.Context, channel string, after uint64, limit int) ([]ports.StreamEvent, error) {
	if limit <= 0 {
		limit = ports.DefaultStreamReadLimit
	}
	rows, err := s.reads.QueryContext(ctx,
		"SELECT seq, appended_at, data FROM stream_event WHERE channel = ? AND seq > ? ORDER BY seq LIMIT ?",
		channel, clampSeq(after), limit)
	if err != nil {
		return nil, opError("stream read", err)
	}
	defer rows.Close()
	var out []ports.StreamEvent
	for rows.Next() {
		var seq, at int64
		var data []byte
		if err := rows.Scan(&seq, &at, &data); err != nil {
			return nil, opError("stream read", err)
		}
		out = append(out, ports.StreamEvent{Seq: uint64(seq), Data: data, AppendedAt: decodeTime(at)})
	}
	if err := rows.Err(); err != nil {
		return nil, opError("stream read", err)
	}
	return out, nil
}

// EventSpan returns which events channel's log holds.
func (s *Store) EventSpan(ctx context.Context, channel string) (ports.StreamSpan, error) {
	var last int64
	var first sql.NullInt64
	err := s.reads.QueryRowContext(ctx,
		"SELECT last_seq, (SELECT min(seq) FROM stream_event WHERE channel = ?1) FROM stream_channel WHERE channel = ?1",
		channel).Scan(&last, &first)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return ports.StreamSpan{First: 1, Last: 0}, nil
	case err != nil:
		return ports.StreamSpan{}, opError("stream span", err)
	}
	return spanOf(uint64(last), first), nil
}

// TrimEvents removes the oldest events of channel until every bound of b
// holds, in one durable write.
func (s *Store) TrimEvents(ctx context.Context, channel string, b ports.StreamBounds) (ports.StreamTrim, error) {
	now := s.clock.Now()
	var tr ports.StreamTrim
	err := s.w.do(ctx, false, func(tx *writeTx) error {
		tr = ports.StreamTrim{}
		bg := context.Background()
		last, kept, err := streamHead(bg, tx.conn, channel)
		if err != nil {
			return err
		}
		cut, removed, err := trimPoint(bg, tx.conn, channel, last, kept, b, now)
		if err != nil {
			return err
		}
		tr.Events, tr.Bytes = removed.events, removed.bytes
		if removed.events > 0 {
			if _, err := tx.conn.ExecContext(bg, "DELETE FROM stream_event WHERE channel = ? AND seq <= ?", channel, int64(cut)); err != nil {
				return err
			}
			if _, err := tx.conn.ExecContext(bg, "UPDATE stream_channel SET bytes = bytes - ? WHERE channel = ?", removed.bytes, channel); err != nil {
				return err
			}
		}
		var first sql.NullInt64
		if err := tx.conn.QueryRowContext(bg, "SELECT min(seq) FROM stream_event WHERE channel = ?", channel).Scan(&first); err != nil {
			return err
		}
		tr.Span = spanOf(last, first)
		return nil
	})
	if err != nil {
		return ports.StreamTrim{}, opError("stream trim", err)
	}
	return tr, nil
}

// appendRows is the most events one INSERT statement stores (4 bound
// values each, well below SQLite's limit on bound values).
const appendRows = 200

// removal counts the events a trim removes.
type removal struct {
	events int
	bytes  int64
}

// trimPoint walks channel's events oldest first and returns the number of
// the last one that must go for b to hold, with what goes.
func trimPoint(ctx context.Context, conn *sql.Conn, channel string, last uint64, keptBytes int64, b ports.StreamBounds, now time.Time) (uint64, removal, error) {
	var r removal
	if b == (ports.StreamBounds{}) {
		return 0, r, nil
	}
	rows, err := conn.QueryContext(ctx,
		"SELECT seq, appended_at, length(data) FROM stream_event WHERE channel = ? ORDER BY seq", channel)
	if err != nil {
		return 0, r, err
	}
	defer rows.Close()
	var cut uint64
	cutoff := encodeTime(now.Add(-b.MaxAge))
	for rows.Next() {
		var seq, at, size int64
		if err := rows.Scan(&seq, &at, &size); err != nil {
			return 0, r, err
		}
		kept := last - uint64(seq) + 1 // this event and the newer ones
		over := (b.MaxEvents > 0 && kept > uint64(b.MaxEvents)) ||
			(b.MaxBytes > 0 && keptBytes > b.MaxBytes) ||
			(b.MaxAge > 0 && at < cutoff)
		if !over {
			break
		}
		cut = uint64(seq)
		r.events++
		r.bytes += size
		keptBytes -= size
	}
	return cut, r, rows.Err()
}

// streamHead reads channel's last sequence number and kept data bytes;
// both are 0 for a channel never appended to.
func streamHead(ctx context.Context, conn *sql.Conn, channel string) (last uint64, bytes int64, err error) {
	var l int64
	err = conn.QueryRowContext(ctx, "SELECT last_seq, bytes FROM stream_channel WHERE channel = ?", channel).Scan(&l, &bytes)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, nil
	}
	return uint64(l), bytes, err
}

// spanOf builds a span from the last number given and the oldest kept,
// NULL when nothing is kept.
func spanOf(last uint64, first sql.NullInt64) ports.StreamSpan {
	if !first.Valid {
		return ports.StreamSpan{First: last + 1, Last: last}
	}
	return ports.StreamSpan{First: uint64(first.Int64), Last: last}
}

// clampSeq makes a sequence number fit SQLite's signed integers.
func clampSeq(n uint64) int64 {
	if n > 1<<63-1 {
		return 1<<63 - 1
	}
	return int64(n)
}
