package sqs

import (
	"net/url"
	"regexp"
)

// Protocol names the wire protocol the SDK client speaks.
type Protocol string

// Protocols.
const (
	// ProtocolJSON is the AWS JSON protocol, the SDK's default and what
	// AWS itself serves.
	ProtocolJSON Protocol = "json"
	// ProtocolQuery is the older Query protocol, for emulators that speak
	// nothing else (goaws).
	ProtocolQuery Protocol = "query"
)

// ClientConfig says how to reach SQS. Every field is optional: with none
// set, the region and credentials come from the SDK's default chain
// (environment, shared config files, instance or task role).
type ClientConfig struct {
	// Region, for example eu-west-1 (from the default chain).
	Region string `yaml:"region" json:"region"`
	// Endpoint overrides the service URL, for emulators and VPC endpoints
	// (none: the region's endpoint).
	Endpoint string `yaml:"endpoint" json:"endpoint"`
	// Protocol is json (the default) or query; only emulators need query.
	Protocol Protocol `yaml:"protocol" json:"protocol"`
	// AccessKeyID and SecretAccessKey, when set, are static credentials
	// used instead of the default chain. Set both or neither.
	AccessKeyID string `yaml:"access_key_id" json:"access_key_id"`
	// SecretAccessKey goes with AccessKeyID.
	SecretAccessKey string `yaml:"secret_access_key" json:"secret_access_key" secret:"true"`
	// SessionToken goes with temporary static credentials (none).
	SessionToken string `yaml:"session_token" json:"session_token" secret:"true"`
}

// WithDefaults fills the protocol.
func (c ClientConfig) WithDefaults() ClientConfig {
	setDefault(&c.Protocol, ProtocolJSON)
	return c
}

var regionPattern = regexp.MustCompile(`^[a-z]{2,}(-[a-z]+)+-\d+$`)

func (c ClientConfig) check(p *problems, prefix string) {
	if c.Region != "" && !regionPattern.MatchString(c.Region) {
		p.add(prefix+"region", "%q is not a region name such as eu-west-1", c.Region)
	}
	if c.Endpoint != "" {
		u, err := url.Parse(c.Endpoint)
		switch {
		case err != nil:
			p.add(prefix+"endpoint", "not a URL: %v", err)
		case u.Scheme != "http" && u.Scheme != "https":
			p.add(prefix+"endpoint", "scheme must be http or https, got %q", u.Scheme)
		case u.Host == "":
			p.add(prefix+"endpoint", "has no host")
		case u.User != nil:
			p.add(prefix+"endpoint", "must not carry credentials; use access_key_id and secret_access_key")
		}
	}
	switch c.Protocol {
	case ProtocolJSON, ProtocolQuery:
	default:
		p.add(prefix+"protocol", "must be json or query, got %q", c.Protocol)
	}
	if (c.AccessKeyID == "") != (c.SecretAccessKey == "") {
		p.add(prefix+"access_key_id", "set access_key_id and secret_access_key together, or neither for the default chain")
	}
	if c.SessionToken != "" && c.AccessKeyID == "" {
		p.add(prefix+"session_token", "needs access_key_id and secret_access_key")
	}
}
