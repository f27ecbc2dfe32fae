package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// leaseRow is the stored state of one lease.
type leaseRow struct {
	owner     string
	version   uint64
	expiresAt int64
	released  bool
}

// Acquire takes key for owner until now+ttl when it is free, expired or
// released, or already held by owner, and returns a token one version
// above the previous one (version 1 for a key never taken). It fails with
// ALREADY_EXISTS while another owner holds an unexpired lease, and with
// INVALID_CONFIG for a ttl of zero or less. Other processes on the same
// file see the lease: the change is a BEGIN IMMEDIATE transaction.
func (s *Store) Acquire(ctx context.Context, key, owner string, ttl time.Duration) (ports.LeaseToken, error) {
	if ttl <= 0 {
		return ports.LeaseToken{}, fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("lease ttl %v is not positive", ttl))
	}
	var tok ports.LeaseToken
	err := s.w.do(ctx, false, func(tx *writeTx) error {
		cur, found, err := tx.lease(key)
		if err != nil {
			return err
		}
		now := encodeTime(s.clock.Now())
		if found && !cur.released && now < cur.expiresAt && cur.owner != owner {
			return fault.ErrAlreadyExists.WithMessage(fmt.Sprintf("lease %q is held by %q until %v",
				key, cur.owner, decodeTime(cur.expiresAt)))
		}
		next := leaseRow{owner: owner, version: cur.version + 1, expiresAt: addClamped(now, ttl)}
		if err := tx.putLease(key, next); err != nil {
			return err
		}
		tok = ports.LeaseToken{Owner: owner, Version: next.version}
		return nil
	})
	if err != nil {
		return ports.LeaseToken{}, opError("lease acquire", err)
	}
	return tok, nil
}

// Renew extends the lease to now+ttl. It fails with STALE_FENCING_TOKEN
// unless tok is the latest token issued for key and was not released; a
// current token whose lease expired without anyone taking it over is
// renewed. A ttl of zero or less fails with INVALID_CONFIG.
func (s *Store) Renew(ctx context.Context, key string, tok ports.LeaseToken, ttl time.Duration) error {
	if ttl <= 0 {
		return fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("lease ttl %v is not positive", ttl))
	}
	err := s.w.do(ctx, false, func(tx *writeTx) error {
		cur, err := tx.currentLease(key, tok)
		if err != nil {
			return err
		}
		cur.expiresAt = addClamped(encodeTime(s.clock.Now()), ttl)
		return tx.putLease(key, cur)
	})
	return opError("lease renew", err)
}

// Release gives the lease up: it stays readable with its version, expired
// at the release time, and the next Acquire issues a higher version. It
// fails with STALE_FENCING_TOKEN when tok is not current.
func (s *Store) Release(ctx context.Context, key string, tok ports.LeaseToken) error {
	err := s.w.do(ctx, false, func(tx *writeTx) error {
		cur, err := tx.currentLease(key, tok)
		if err != nil {
			return err
		}
		cur.expiresAt = min(cur.expiresAt, encodeTime(s.clock.Now()))
		cur.released = true
		return tx.putLease(key, cur)
	})
	return opError("lease release", err)
}

// Read returns the stored lease, held, expired or released; ok is false
// when key was never taken. It reads committed state, including changes
// made by other processes on the same file.
func (s *Store) Read(ctx context.Context, key string) (ports.Lease, bool, error) {
	var (
		row     leaseRow
		version int64
	)
	err := s.reads.QueryRowContext(ctx, "SELECT owner, version, expires_at, released FROM lease WHERE key = ?", key).
		Scan(&row.owner, &version, &row.expiresAt, &row.released)
	if errors.Is(err, sql.ErrNoRows) {
		return ports.Lease{}, false, nil
	}
	if err != nil {
		return ports.Lease{}, false, opError("lease read", err)
	}
	return ports.Lease{
		Key:       key,
		Token:     ports.LeaseToken{Owner: row.owner, Version: uint64(version)},
		ExpiresAt: decodeTime(row.expiresAt),
	}, true, nil
}

// lease reads key inside the writer's transaction.
func (tx *writeTx) lease(key string) (leaseRow, bool, error) {
	var (
		row     leaseRow
		version int64
	)
	err := tx.stmts.leaseGet.QueryRow(key).Scan(&row.owner, &version, &row.expiresAt, &row.released)
	if errors.Is(err, sql.ErrNoRows) {
		return leaseRow{}, false, nil
	}
	if err != nil {
		return leaseRow{}, false, err
	}
	row.version = uint64(version)
	return row, true, nil
}

// currentLease returns key's lease when tok is its current token.
func (tx *writeTx) currentLease(key string, tok ports.LeaseToken) (leaseRow, error) {
	cur, found, err := tx.lease(key)
	if err != nil {
		return leaseRow{}, err
	}
	if !found || cur.released || cur.owner != tok.Owner || cur.version != tok.Version {
		return leaseRow{}, fault.ErrStaleFencingToken.WithMessage(fmt.Sprintf(
			"lease %q: token version %d of %q is not current", key, tok.Version, tok.Owner))
	}
	return cur, nil
}

func (tx *writeTx) putLease(key string, row leaseRow) error {
	_, err := tx.stmts.leasePut.Exec(key, row.owner, int64(row.version), row.expiresAt, row.released)
	return err
}
