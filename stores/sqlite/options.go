package sqlite

import (
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/gobridge-oss/gobridge/core/clock"
	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// Defaults of the options.
const (
	DefaultSynchronous  = "FULL"
	DefaultBusyTimeout  = 5 * time.Second
	DefaultMaxBatchOps  = 1024
	DefaultCommitLinger = 500 * time.Microsecond
	DefaultReadConns    = 4
	DefaultStartupCheck = CheckQuick
	DefaultPageSize     = 8192
)

// StartupCheck selects the integrity check Open runs on an existing file.
type StartupCheck string

// Startup checks.
const (
	// CheckQuick runs PRAGMA quick_check: page structure without index
	// contents. It reads the whole file once.
	CheckQuick StartupCheck = "quick"
	// CheckFull runs PRAGMA integrity_check, which also verifies indexes;
	// it is slower on large files.
	CheckFull StartupCheck = "full"
	// CheckOff skips the check; the header and schema are still verified.
	CheckOff StartupCheck = "off"
)

// Option configures Open.
type Option func(*config)

type config struct {
	clock         ports.Clock
	staleClaimAge time.Duration
	synchronous   string
	busyTimeout   time.Duration
	logger        *slog.Logger
	maxBatchOps   int
	linger        time.Duration
	readConns     int
	check         StartupCheck
	pageSize      int
	meter         telemetry.Meter
	storeLabel    string
	shared        bool
}

func defaultConfig() config {
	return config{
		clock:         clock.System(),
		staleClaimAge: ports.DefaultStaleClaimAge,
		synchronous:   DefaultSynchronous,
		busyTimeout:   DefaultBusyTimeout,
		maxBatchOps:   DefaultMaxBatchOps,
		linger:        DefaultCommitLinger,
		readConns:     DefaultReadConns,
		check:         DefaultStartupCheck,
		pageSize:      DefaultPageSize,
	}
}

// WithClock sets the time source for CreatedAt, claim ages, due times and
// lease expiry. The default is the system clock.
func WithClock(c ports.Clock) Option { return func(cfg *config) { cfg.clock = c } }

// WithStaleClaimAge sets how long a claim may stay uncompleted before the
// record can be claimed again; the default is ports.DefaultStaleClaimAge.
// The deadline is fixed when a record is claimed, so a new value applies to
// claims made after it took effect.
func WithStaleClaimAge(d time.Duration) Option {
	return func(cfg *config) { cfg.staleClaimAge = d }
}

// WithSynchronous sets SQLite's synchronous level: "FULL" (the default;
// every commit is fsynced before the call returns, so acknowledged data
// survives power loss), "NORMAL" (commits survive a crash of the process
// but the last ones may be lost on power loss) or "OFF" (no fsync at all).
func WithSynchronous(level string) Option {
	return func(cfg *config) { cfg.synchronous = strings.ToUpper(strings.TrimSpace(level)) }
}

// WithBusyTimeout sets how long a connection waits for a SQLite lock that
// another connection to the file holds (an operator's sqlite3 shell, a
// backup; no other Store can have the file open) before the operation
// fails with UNAVAILABLE. The default is DefaultBusyTimeout.
func WithBusyTimeout(d time.Duration) Option {
	return func(cfg *config) { cfg.busyTimeout = d }
}

// WithLogger sets the logger for start-up and failed batches; the default
// discards everything.
func WithLogger(l *slog.Logger) Option { return func(cfg *config) { cfg.logger = l } }

// WithMaxBatchOps bounds how many queued write calls the writer commits in
// one transaction; the default is DefaultMaxBatchOps.
func WithMaxBatchOps(n int) Option { return func(cfg *config) { cfg.maxBatchOps = n } }

// WithCommitLinger bounds how long the writer keeps a transaction open
// waiting for more writes before it commits; the default is
// DefaultCommitLinger. The writer only waits while fewer writes joined the
// transaction than callers were in flight when it began, so a lone caller
// never waits; zero disables waiting.
func WithCommitLinger(d time.Duration) Option { return func(cfg *config) { cfg.linger = d } }

// WithReadConns sets the size of the read connection pool; the default is
// DefaultReadConns.
func WithReadConns(n int) Option { return func(cfg *config) { cfg.readConns = n } }

// WithStartupCheck selects the integrity check Open runs; the default is
// CheckQuick.
func WithStartupCheck(c StartupCheck) Option { return func(cfg *config) { cfg.check = c } }

// WithPageSize sets the page size, in bytes, of a database file Open
// creates: a power of two from 512 to 65536. The default, DefaultPageSize,
// is twice SQLite's own: a group commit then writes half as many WAL frames,
// one system call and one checksum each, for the same records. A file that
// already exists keeps the page size it was created with.
func WithPageSize(n int) Option { return func(cfg *config) { cfg.pageSize = n } }

// WithMetrics records the writer's commits, the write calls each carried,
// the time spent in COMMIT and the failed batches on m, labelled
// store=name (the store's ID in the configuration; the file's base name
// when empty). The default records nothing. See docs/metrics.md.
func WithMetrics(m telemetry.Meter, name string) Option {
	return func(cfg *config) { cfg.meter, cfg.storeLabel = m, name }
}

func (c *config) validate() error {
	var problems []string
	if c.clock == nil {
		problems = append(problems, "clock is nil")
	}
	if c.staleClaimAge <= 0 {
		problems = append(problems, fmt.Sprintf("stale claim age %v is not positive", c.staleClaimAge))
	}
	switch c.synchronous {
	case "FULL", "NORMAL", "OFF":
	default:
		problems = append(problems, fmt.Sprintf("synchronous %q is not FULL, NORMAL or OFF", c.synchronous))
	}
	if c.busyTimeout < 0 {
		problems = append(problems, fmt.Sprintf("busy timeout %v is negative", c.busyTimeout))
	}
	if c.maxBatchOps < 1 {
		problems = append(problems, fmt.Sprintf("max batch ops %d is below 1", c.maxBatchOps))
	}
	if c.linger < 0 {
		problems = append(problems, fmt.Sprintf("commit linger %v is negative", c.linger))
	}
	if c.readConns < 1 {
		problems = append(problems, fmt.Sprintf("read conns %d is below 1", c.readConns))
	}
	if c.pageSize < 512 || c.pageSize > 65536 || c.pageSize&(c.pageSize-1) != 0 {
		problems = append(problems, fmt.Sprintf("page size %d is not a power of two from 512 to 65536", c.pageSize))
	}
	switch c.check {
	case CheckQuick, CheckFull, CheckOff:
	default:
		problems = append(problems, fmt.Sprintf("startup check %q is not quick, full or off", c.check))
	}
	if len(problems) > 0 {
		return fault.ErrInvalidConfig.WithMessage("sqlite store: " + strings.Join(problems, "; "))
	}
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
	if c.meter == nil {
		c.meter = telemetry.Noop()
	}
	return nil
}
