package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// LoadSubscriptions returns the set last saved for session, ordered by
// filter; baselined is false when nothing was saved for it. It reads
// committed state, other processes' saves included.
func (s *Store) LoadSubscriptions(ctx context.Context, session string) ([]ports.ManagedSubscription, bool, error) {
	if _, err := ports.CheckSubscriptions(session, nil); err != nil {
		return nil, false, err
	}
	var at int64
	err := s.reads.QueryRowContext(ctx, "SELECT saved_at FROM managed_session WHERE session = ?", session).Scan(&at)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, opError("managed subscriptions load", err)
	}
	rows, err := s.reads.QueryContext(ctx,
		"SELECT filter, qos FROM managed_subscription WHERE session = ? ORDER BY filter", session)
	if err != nil {
		return nil, false, opError("managed subscriptions load", err)
	}
	defer rows.Close()
	subs := []ports.ManagedSubscription{}
	for rows.Next() {
		var sub ports.ManagedSubscription
		if err := rows.Scan(&sub.Filter, &sub.QoS); err != nil {
			return nil, false, opError("managed subscriptions load", err)
		}
		subs = append(subs, sub)
	}
	if err := rows.Err(); err != nil {
		return nil, false, opError("managed subscriptions load", err)
	}
	return subs, true, nil
}

// SaveSubscriptions replaces the set recorded for session in one
// transaction.
func (s *Store) SaveSubscriptions(ctx context.Context, session string, subs []ports.ManagedSubscription) error {
	sorted, err := ports.CheckSubscriptions(session, subs)
	if err != nil {
		return err
	}
	at := encodeTime(s.clock.Now())
	err = s.w.do(ctx, true, func(tx *writeTx) error {
		bg := context.Background()
		if _, err := tx.conn.ExecContext(bg, "DELETE FROM managed_subscription WHERE session = ?", session); err != nil {
			return err
		}
		for _, sub := range sorted {
			if _, err := tx.conn.ExecContext(bg, "INSERT INTO managed_subscription (session, filter, qos) VALUES (?, ?, ?)",
				session, sub.Filter, int64(sub.QoS)); err != nil {
				return err
			}
		}
		_, err := tx.conn.ExecContext(bg, `INSERT INTO managed_session (session, saved_at) VALUES (?, ?)
			ON CONFLICT (session) DO UPDATE SET saved_at = excluded.saved_at`, session, at)
		return err
	})
	if err != nil {
		return opError("managed subscriptions save", err)
	}
	return nil
}
