package registry

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/ports"
)

type secretInner struct {
	Token string `yaml:"token" secret:"true"`
	Name  string `yaml:"name"`
}

type secretCfg struct {
	Password string            `yaml:"password" secret:"true"`
	Headers  map[string]string `yaml:"headers" secret:"true"`
	Keys     []string          `yaml:"keys" secret:"true"`
	Inner    []secretInner     `yaml:"inner"`
	Plain    string            `yaml:"plain"`
}

// TestSchemaMarksSecretTags checks that a secret:"true" tag, at any depth,
// gives the property writeOnly and x-secret, and nothing else gets them.
func TestSchemaMarksSecretTags(t *testing.T) {
	f := Sender[secretCfg]("s", "", func(context.Context, secretCfg, Settings) (ports.Sender, error) { return nil, nil })
	var s struct {
		Properties map[string]struct {
			WriteOnly bool `json:"writeOnly"`
			Secret    bool `json:"x-secret"`
			Items     struct {
				Properties map[string]struct {
					WriteOnly bool `json:"writeOnly"`
					Secret    bool `json:"x-secret"`
				} `json:"properties"`
			} `json:"items"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(f.Schema(), &s); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for k, p := range s.Properties {
		got[k] = p.WriteOnly && p.Secret
		for ik, ip := range p.Items.Properties {
			got[k+"[]."+ik] = ip.WriteOnly && ip.Secret
		}
	}
	want := map[string]bool{"password": true, "headers": true, "keys": true, "inner": false,
		"inner[].token": true, "inner[].name": false, "plain": false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("secret marks (-want +got):\n%s", diff)
	}
}
