package servicebus

import (
	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// NewClient builds an SDK client from c: from the connection string, or
// for the namespace with the configured Azure AD credential.
func NewClient(c ClientConfig) (*azservicebus.Client, error) {
	c = c.WithDefaults()
	var p problems
	c.check(&p, "client.")
	if err := p.err(); err != nil {
		return nil, err
	}
	if c.ConnectionString != "" {
		cl, err := azservicebus.NewClientFromConnectionString(c.ConnectionString, nil)
		if err != nil {
			// The SDK's message may quote the string; keep it out.
			return nil, fault.ErrInvalidConfig.WithMessage("servicebus: client.connection_string could not be used")
		}
		return cl, nil
	}
	cred, err := credential(c.Credential)
	if err != nil {
		return nil, fault.ErrInvalidConfig.WithMessage("servicebus: building the " + string(c.Credential.Kind) + " credential").Wrap(err)
	}
	cl, err := azservicebus.NewClient(c.Namespace, cred, nil)
	if err != nil {
		return nil, fault.ErrInvalidConfig.WithMessage("servicebus: client for " + c.Namespace).Wrap(err)
	}
	return cl, nil
}

// credential builds the azidentity credential c names.
func credential(c CredentialConfig) (azcore.TokenCredential, error) {
	switch c.Kind {
	case CredentialManagedIdentity:
		o := &azidentity.ManagedIdentityCredentialOptions{}
		if c.ClientID != "" {
			o.ID = azidentity.ClientID(c.ClientID)
		}
		return azidentity.NewManagedIdentityCredential(o)
	case CredentialWorkloadIdentity:
		return azidentity.NewWorkloadIdentityCredential(&azidentity.WorkloadIdentityCredentialOptions{TenantID: c.TenantID, ClientID: c.ClientID})
	case CredentialClientSecret:
		return azidentity.NewClientSecretCredential(c.TenantID, c.ClientID, c.ClientSecret, nil)
	}
	return azidentity.NewDefaultAzureCredential(&azidentity.DefaultAzureCredentialOptions{TenantID: c.TenantID})
}
