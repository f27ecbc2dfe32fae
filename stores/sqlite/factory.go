package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/registry"
)

// FactoryType is the type name of this store in configuration files.
const FactoryType = "sqlite"

// FactoryConfig is the settings block of a `type: sqlite` store. Zero
// fields take the defaults of the matching options.
type FactoryConfig struct {
	// Path is the database file. A relative path is resolved against the
	// distro's data directory, which is created when missing. Required.
	// One process at a time may open it (see Open).
	Path string `yaml:"path" json:"path"`
	// Synchronous is FULL (default), NORMAL or OFF.
	Synchronous string `yaml:"synchronous" json:"synchronous"`
	// BusyTimeout bounds waits for another connection's SQLite lock (5s).
	BusyTimeout time.Duration `yaml:"busy_timeout" json:"busy_timeout"`
	// StaleClaimAge is how long a claim may stay uncompleted (30s).
	StaleClaimAge time.Duration `yaml:"stale_claim_age" json:"stale_claim_age"`
	// MaxBatchOps bounds the writes committed together (1024).
	MaxBatchOps int `yaml:"max_batch_ops" json:"max_batch_ops"`
	// CommitLinger is how long a commit may wait for more writes (500µs).
	CommitLinger time.Duration `yaml:"commit_linger" json:"commit_linger"`
	// ReadConns is the size of the read connection pool (4).
	ReadConns int `yaml:"read_conns" json:"read_conns"`
	// StartupCheck is quick (default), full or off.
	StartupCheck StartupCheck `yaml:"startup_check" json:"startup_check"`
	// PageSize is the page size of a file the store creates (8192); an
	// existing file keeps its own.
	PageSize int `yaml:"page_size" json:"page_size"`
	// Shared lets the processes of one host open the file together, as
	// the instances of a clustered bridge do (false; see WithShared).
	Shared bool `yaml:"shared" json:"shared"`
}

// Validate checks what can be checked before the file is opened.
func (c FactoryConfig) Validate() error {
	if c.Path == "" {
		return fault.ErrInvalidConfig.WithMessage("path is required")
	}
	return nil
}

// options turns the settings into Open options.
func (c FactoryConfig) options() []Option {
	var opts []Option
	if c.Synchronous != "" {
		opts = append(opts, WithSynchronous(c.Synchronous))
	}
	if c.BusyTimeout != 0 {
		opts = append(opts, WithBusyTimeout(c.BusyTimeout))
	}
	if c.StaleClaimAge != 0 {
		opts = append(opts, WithStaleClaimAge(c.StaleClaimAge))
	}
	if c.MaxBatchOps != 0 {
		opts = append(opts, WithMaxBatchOps(c.MaxBatchOps))
	}
	if c.CommitLinger != 0 {
		opts = append(opts, WithCommitLinger(c.CommitLinger))
	}
	if c.ReadConns != 0 {
		opts = append(opts, WithReadConns(c.ReadConns))
	}
	if c.StartupCheck != "" {
		opts = append(opts, WithStartupCheck(c.StartupCheck))
	}
	if c.PageSize != 0 {
		opts = append(opts, WithPageSize(c.PageSize))
	}
	if c.Shared {
		opts = append(opts, WithShared(true))
	}
	return opts
}

// Factory returns the registry factory of the SQLite store: outbox, DLQ
// and lease in one file.
func Factory() registry.StoreFactory {
	return registry.WithLocality(storeFactory(), registry.LocalityHost)
}

// storeFactory builds the store from its settings.
func storeFactory() registry.StoreFactory {
	return registry.Store(FactoryType, "outbox, DLQ and lease in one SQLite file (WAL, group commit)",
		func(ctx context.Context, cfg FactoryConfig, d registry.Settings) (any, error) {
			log := d.Logger
			path := cfg.Path
			if !filepath.IsAbs(path) && d.DataDir != "" {
				// The data directory is the bridge's own: private to its
				// user, whoever created it.
				if err := privateDir(d.DataDir, log); err != nil {
					return nil, fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("sqlite store: cannot create the data directory %s", d.DataDir)).Wrap(err)
				}
				path = filepath.Join(d.DataDir, path)
			}
			// A directory the store creates is private; one that exists
			// outside the data directory is the operator's and is left
			// as it is.
			if err := os.MkdirAll(filepath.Dir(path), dirMode); err != nil {
				return nil, fault.ErrInvalidConfig.WithMessage(fmt.Sprintf("sqlite store: cannot create directory for %s", path)).Wrap(err)
			}
			opts := append(cfg.options(), WithLogger(d.Logger), WithClock(d.Clock), WithMetrics(d.Meter, d.ID))
			return Open(ctx, path, opts...)
		})
}
