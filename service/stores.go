package service

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/gobridge-oss/gobridge/core/config"
	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/registry"
)

// storeSet holds the stores of the four roles. Roles configured with the
// same type and settings share one instance (one SQLite file, one writer).
type storeSet struct {
	outbox ports.OutboxStore
	dlq    ports.DLQStore
	lease  ports.LeaseStore
	subs   ports.SubscriptionLedger
	opened []any
}

// openStores opens the configured stores. A store whose type cannot play
// its role is an INVALID_CONFIG error naming the role.
func openStores(ctx context.Context, f *config.File, reg *registry.Registry, d registry.Settings) (*storeSet, error) {
	s := &storeSet{}
	byPrint := map[string]any{}
	open := func(role string, sc *config.Store) (any, error) {
		if sc == nil {
			return nil, nil
		}
		p := fingerprint(sc)
		if v, ok := byPrint[p]; ok {
			return v, nil
		}
		fac, ok := reg.Store(sc.Type)
		if !ok {
			return nil, fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("stores.%s.type: unknown store type %q", role, sc.Type))
		}
		cfg, err := fac.Decode(sc.Settings)
		if err != nil {
			return nil, fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("stores.%s.settings: %v", role, err))
		}
		sd := d
		sd.ID, sd.Logger = "store-"+role, d.Logger.With("component", "store-"+role)
		v, err := fac.Build(ctx, cfg, sd)
		if err != nil {
			return nil, fmt.Errorf("stores.%s: %w", role, err)
		}
		byPrint[p] = v
		s.opened = append(s.opened, v)
		return v, nil
	}
	var ok bool
	if v, err := open("outbox", f.Stores.Outbox); err != nil {
		s.close(context.WithoutCancel(ctx), d.Logger)
		return nil, err
	} else if v != nil {
		if s.outbox, ok = v.(ports.OutboxStore); !ok {
			s.close(context.WithoutCancel(ctx), d.Logger)
			return nil, fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("stores.outbox: type %q cannot hold an outbox", f.Stores.Outbox.Type))
		}
	}
	if v, err := open("dlq", f.Stores.DLQ); err != nil {
		s.close(context.WithoutCancel(ctx), d.Logger)
		return nil, err
	} else if v != nil {
		if s.dlq, ok = v.(ports.DLQStore); !ok {
			s.close(context.WithoutCancel(ctx), d.Logger)
			return nil, fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("stores.dlq: type %q cannot hold a DLQ", f.Stores.DLQ.Type))
		}
	}
	if v, err := open("lease", f.Stores.Lease); err != nil {
		s.close(context.WithoutCancel(ctx), d.Logger)
		return nil, err
	} else if v != nil {
		if s.lease, ok = v.(ports.LeaseStore); !ok {
			s.close(context.WithoutCancel(ctx), d.Logger)
			return nil, fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("stores.lease: type %q cannot hold a lease", f.Stores.Lease.Type))
		}
	}
	if v, err := open("managed_subscriptions", f.Stores.ManagedSubscriptions); err != nil {
		s.close(context.WithoutCancel(ctx), d.Logger)
		return nil, err
	} else if v != nil {
		if s.subs, ok = v.(ports.SubscriptionLedger); !ok {
			s.close(context.WithoutCancel(ctx), d.Logger)
			return nil, fault.ErrInvalidConfig.WithMessage(fmt.Sprintf(
				"stores.managed_subscriptions: type %q cannot keep managed subscriptions", f.Stores.ManagedSubscriptions.Type))
		}
	}
	return s, nil
}

// ledger returns the managed-subscriptions store, or nil.
func (s *storeSet) ledger() ports.SubscriptionLedger {
	if s == nil {
		return nil
	}
	return s.subs
}

// close closes every opened store once.
func (s *storeSet) close(ctx context.Context, log *slog.Logger) {
	for _, v := range s.opened {
		if err := closeValue(ctx, v); err != nil {
			log.Warn("closing store failed", "err", err)
		}
	}
	s.opened = nil
}
