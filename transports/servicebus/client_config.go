package servicebus

import (
	"net/url"
	"regexp"
	"strings"
)

// CredentialKind names how the client gets Azure AD (Entra ID) tokens
// when it reaches a namespace without a connection string.
type CredentialKind string

// Credential kinds.
const (
	// CredentialDefault is azidentity's DefaultAzureCredential: the
	// environment, workload identity, managed identity, then the Azure
	// CLI and Developer CLI logins. The default.
	CredentialDefault CredentialKind = "default"
	// CredentialManagedIdentity is the managed identity of the VM, App
	// Service or container the bridge runs on (client_id picks a
	// user-assigned one).
	CredentialManagedIdentity CredentialKind = "managed_identity"
	// CredentialWorkloadIdentity is Kubernetes workload identity, read
	// from the AZURE_* variables its webhook injects (tenant_id and
	// client_id override them).
	CredentialWorkloadIdentity CredentialKind = "workload_identity"
	// CredentialClientSecret is an app registration's client secret.
	CredentialClientSecret CredentialKind = "client_secret"
)

// CredentialConfig selects the Azure AD credential used with Namespace.
type CredentialConfig struct {
	// Kind is default, managed_identity, workload_identity or
	// client_secret (default).
	Kind CredentialKind `yaml:"kind" json:"kind"`
	// TenantID is the directory (tenant) ID; required for client_secret.
	TenantID string `yaml:"tenant_id" json:"tenant_id"`
	// ClientID is the application or user-assigned identity's client ID;
	// required for client_secret.
	ClientID string `yaml:"client_id" json:"client_id"`
	// ClientSecret is the secret of client_secret.
	ClientSecret string `yaml:"client_secret" json:"client_secret" secret:"true"`
}

// ClientConfig says how to reach a Service Bus namespace: either a
// connection string (shared access key or signature, or the development
// emulator's), or a namespace name with an Azure AD credential.
type ClientConfig struct {
	// ConnectionString is Endpoint=sb://NS.servicebus.windows.net/;
	// SharedAccessKeyName=...;SharedAccessKey=... (or
	// SharedAccessSignature=..., or UseDevelopmentEmulator=true). Set it
	// or Namespace, not both.
	ConnectionString string `yaml:"connection_string" json:"connection_string" secret:"true"`
	// Namespace is the fully qualified namespace,
	// NS.servicebus.windows.net, reached with Credential.
	Namespace string `yaml:"namespace" json:"namespace"`
	// Credential is used with Namespace only.
	Credential CredentialConfig `yaml:"credential" json:"credential"`
}

// WithDefaults fills the credential kind when a namespace is set.
func (c ClientConfig) WithDefaults() ClientConfig {
	if c.Namespace != "" {
		setDefault(&c.Credential.Kind, CredentialDefault)
	}
	return c
}

var namespacePattern = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)+(:\d{1,5})?$`)

func (c ClientConfig) check(p *problems, prefix string) {
	switch {
	case c.ConnectionString == "" && c.Namespace == "":
		p.add(prefix+"connection_string", "set connection_string, or namespace with a credential")
	case c.ConnectionString != "" && c.Namespace != "":
		p.add(prefix+"namespace", "set connection_string or namespace, not both")
	case c.ConnectionString != "":
		checkConnectionString(p, prefix+"connection_string", c.ConnectionString)
		if c.Credential != (CredentialConfig{}) {
			p.add(prefix+"credential", "only applies with namespace; a connection string carries its own key")
		}
	default:
		if !namespacePattern.MatchString(c.Namespace) {
			p.add(prefix+"namespace", "%q is not a fully qualified namespace such as myns.servicebus.windows.net (no scheme, no path)", c.Namespace)
		}
		c.Credential.check(p, prefix+"credential.")
	}
}

func (c CredentialConfig) check(p *problems, prefix string) {
	switch c.Kind {
	case CredentialDefault, CredentialManagedIdentity, CredentialWorkloadIdentity:
		if c.ClientSecret != "" {
			p.add(prefix+"client_secret", "only applies to kind client_secret")
		}
	case CredentialClientSecret:
		if c.TenantID == "" {
			p.add(prefix+"tenant_id", "required for kind client_secret")
		}
		if c.ClientID == "" {
			p.add(prefix+"client_id", "required for kind client_secret")
		}
		if c.ClientSecret == "" {
			p.add(prefix+"client_secret", "required for kind client_secret")
		}
	default:
		p.add(prefix+"kind", "must be default, managed_identity, workload_identity or client_secret, got %q", c.Kind)
	}
}

// checkConnectionString checks the shape of a connection string without
// quoting it: problems never show the key.
func checkConnectionString(p *problems, field, cs string) {
	keys := map[string]string{}
	for _, part := range strings.Split(cs, ";") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			p.add(field, "every part must be KEY=VALUE")
			return
		}
		keys[strings.ToLower(strings.TrimSpace(k))] = v
	}
	ep, ok := keys["endpoint"]
	if !ok {
		p.add(field, "has no Endpoint=sb://...")
		return
	}
	u, err := url.Parse(ep)
	if err != nil || u.Host == "" || u.Scheme != "sb" {
		p.add(field, "Endpoint must be sb://HOST[:PORT]/")
	}
	_, name := keys["sharedaccesskeyname"]
	_, key := keys["sharedaccesskey"]
	_, sas := keys["sharedaccesssignature"]
	if !sas && !(name && key) {
		p.add(field, "needs SharedAccessKeyName and SharedAccessKey, or SharedAccessSignature")
	}
	if v, ok := keys["usedevelopmentemulator"]; ok && !strings.EqualFold(v, "true") && !strings.EqualFold(v, "false") {
		p.add(field, "UseDevelopmentEmulator must be true or false")
	}
}
