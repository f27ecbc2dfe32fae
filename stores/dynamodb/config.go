package dynamodb

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// Defaults of the configuration.
const (
	DefaultTablePrefix      = "gobridge_"
	DefaultBillingMode      = BillingOnDemand
	DefaultClockSkew        = 2 * time.Second
	DefaultMaxAttempts      = 5
	DefaultClaimConcurrency = 8
)

// BillingMode is the capacity mode of the tables the store creates.
type BillingMode string

// Billing modes.
const (
	// BillingOnDemand is DynamoDB's PAY_PER_REQUEST mode.
	BillingOnDemand BillingMode = "on_demand"
	// BillingProvisioned creates tables with read_capacity and
	// write_capacity units.
	BillingProvisioned BillingMode = "provisioned"
)

// Config is the settings block of a `type: dynamodb` store. Every field
// is optional; WithDefaults fills the defaults.
type Config struct {
	// Region, for example eu-west-1 (from the SDK's default chain).
	Region string `yaml:"region" json:"region"`
	// Endpoint overrides the service URL, for emulators and VPC endpoints
	// (none: the region's endpoint).
	Endpoint string `yaml:"endpoint" json:"endpoint"`
	// AccessKeyID and SecretAccessKey, when set, are static credentials
	// used instead of the default chain. Set both or neither.
	AccessKeyID string `yaml:"access_key_id" json:"access_key_id"`
	// SecretAccessKey goes with AccessKeyID.
	SecretAccessKey string `yaml:"secret_access_key" json:"secret_access_key" secret:"true"`
	// SessionToken goes with temporary static credentials (none).
	SessionToken string `yaml:"session_token" json:"session_token" secret:"true"`
	// TablePrefix starts the names of the three tables: PREFIXoutbox,
	// PREFIXdlq and PREFIXlease (gobridge_). Bridges that share a prefix
	// share their records, DLQ and leases.
	TablePrefix string `yaml:"table_prefix" json:"table_prefix"`
	// CreateTables makes the store create missing tables at start (false:
	// a missing table is a configuration problem naming it).
	CreateTables bool `yaml:"create_tables" json:"create_tables"`
	// BillingMode of created tables: on_demand (default) or provisioned.
	BillingMode BillingMode `yaml:"billing_mode" json:"billing_mode"`
	// ReadCapacity and WriteCapacity are the units of each created table
	// in provisioned mode (required there, refused in on_demand mode).
	ReadCapacity int64 `yaml:"read_capacity" json:"read_capacity"`
	// WriteCapacity goes with ReadCapacity.
	WriteCapacity int64 `yaml:"write_capacity" json:"write_capacity"`
	// StaleClaimAge is how long a claim may stay uncompleted (30s).
	StaleClaimAge time.Duration `yaml:"stale_claim_age" json:"stale_claim_age"`
	// ClockSkew is how far apart the clocks of the machines sharing the
	// tables may be (2s). A contender takes over an unreleased lease only
	// once it expired this long ago by its own clock.
	ClockSkew time.Duration `yaml:"clock_skew" json:"clock_skew"`
	// DLQRetention lets DynamoDB's TTL remove a DLQ entry this long after
	// it was written (0: keep until purged).
	DLQRetention time.Duration `yaml:"dlq_retention" json:"dlq_retention"`
	// MaxAttempts bounds the SDK's attempts per request, throttled ones
	// included, before a call fails as transient (5).
	MaxAttempts int `yaml:"max_attempts" json:"max_attempts"`
	// ClaimConcurrency bounds the conditional updates one Claim runs at a
	// time (8).
	ClaimConcurrency int `yaml:"claim_concurrency" json:"claim_concurrency"`
	// PayloadCompression is deflate (default: the payload of an item over
	// 1 KiB is stored deflated when that lowers the item's write units) or
	// none.
	PayloadCompression Compression `yaml:"payload_compression" json:"payload_compression"`
}

// Compression is how payloads are stored.
type Compression string

// Compressions.
const (
	CompressionDeflate Compression = "deflate"
	CompressionNone    Compression = "none"
)

// WithDefaults fills the zero fields that have a default.
func (c Config) WithDefaults() Config {
	if c.TablePrefix == "" {
		c.TablePrefix = DefaultTablePrefix
	}
	if c.BillingMode == "" {
		c.BillingMode = DefaultBillingMode
	}
	if c.StaleClaimAge == 0 {
		c.StaleClaimAge = ports.DefaultStaleClaimAge
	}
	if c.ClockSkew == 0 {
		c.ClockSkew = DefaultClockSkew
	}
	if c.MaxAttempts == 0 {
		c.MaxAttempts = DefaultMaxAttempts
	}
	if c.ClaimConcurrency == 0 {
		c.ClaimConcurrency = DefaultClaimConcurrency
	}
	if c.PayloadCompression == "" {
		c.PayloadCompression = CompressionDeflate
	}
	return c
}

var regionPattern = regexp.MustCompile(`^[a-z]{2,}(-[a-z]+)+-\d+$`)

// maxPrefixLen leaves room for the longest table suffix (6) in a table
// name of at most 255 characters.
const maxPrefixLen = 249

// validPrefix reports whether p may start a table name: at most
// maxPrefixLen letters, digits, '_', '-' and '.'. It is a loop rather
// than a regular expression because a bounded repetition of 249 compiles
// into a program of 249 copies, which cost every process that links the
// store about 230 KB and 2 ms at start-up.
func validPrefix(p string) bool {
	if len(p) > maxPrefixLen {
		return false
	}
	for _, r := range []byte(p) {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9', r == '_', r == '-', r == '.':
		default:
			return false
		}
	}
	return true
}

// Validate lists every problem of the settings, each naming its field.
// Zero fields are taken as their defaults.
func (c Config) Validate() error {
	c = c.WithDefaults()
	var errs []error
	add := func(field, format string, args ...any) {
		errs = append(errs, fault.ErrInvalidConfig.WithMessage("dynamodb store: "+field+": "+fmt.Sprintf(format, args...)))
	}
	if c.Region != "" && !regionPattern.MatchString(c.Region) {
		add("region", "%q is not a region name such as eu-west-1", c.Region)
	}
	if c.Endpoint != "" {
		u, err := url.Parse(c.Endpoint)
		switch {
		case err != nil:
			add("endpoint", "not a URL: %v", err)
		case u.Scheme != "http" && u.Scheme != "https":
			add("endpoint", "scheme must be http or https, got %q", u.Scheme)
		case u.Host == "":
			add("endpoint", "has no host")
		case u.User != nil:
			add("endpoint", "must not carry credentials; use access_key_id and secret_access_key")
		}
	}
	if (c.AccessKeyID == "") != (c.SecretAccessKey == "") {
		add("access_key_id", "set access_key_id and secret_access_key together, or neither for the default chain")
	}
	if c.SessionToken != "" && c.AccessKeyID == "" {
		add("session_token", "needs access_key_id and secret_access_key")
	}
	if !validPrefix(c.TablePrefix) {
		add("table_prefix", "%q may hold only letters, digits, '_', '-' and '.', at most 249 of them", c.TablePrefix)
	}
	switch c.BillingMode {
	case BillingOnDemand:
		if c.ReadCapacity != 0 || c.WriteCapacity != 0 {
			add("read_capacity", "read_capacity and write_capacity apply to billing_mode provisioned only")
		}
	case BillingProvisioned:
		if c.ReadCapacity < 1 {
			add("read_capacity", "must be at least 1 in provisioned mode, got %d", c.ReadCapacity)
		}
		if c.WriteCapacity < 1 {
			add("write_capacity", "must be at least 1 in provisioned mode, got %d", c.WriteCapacity)
		}
	default:
		add("billing_mode", "must be on_demand or provisioned, got %q", c.BillingMode)
	}
	if c.StaleClaimAge < 0 {
		add("stale_claim_age", "%v is negative", c.StaleClaimAge)
	}
	if c.ClockSkew < 0 {
		add("clock_skew", "%v is negative", c.ClockSkew)
	}
	if c.DLQRetention < 0 {
		add("dlq_retention", "%v is negative", c.DLQRetention)
	}
	if c.MaxAttempts < 1 {
		add("max_attempts", "%d is below 1", c.MaxAttempts)
	}
	if c.ClaimConcurrency < 1 {
		add("claim_concurrency", "%d is below 1", c.ClaimConcurrency)
	}
	if c.PayloadCompression != CompressionDeflate && c.PayloadCompression != CompressionNone {
		add("payload_compression", "must be deflate or none, got %q", c.PayloadCompression)
	}
	return errors.Join(errs...)
}

// tableNames are the three tables of a prefix.
type tableNames struct{ outbox, dlq, lease string }

func (c Config) tables() tableNames {
	return tableNames{outbox: c.TablePrefix + "outbox", dlq: c.TablePrefix + "dlq", lease: c.TablePrefix + "lease"}
}
