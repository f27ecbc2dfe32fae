package servicetest

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/config"
	. "github.com/gobridge-oss/gobridge/service"
)

// TestStoreWarningsFollowTheFactorysLocality: validation warns about an
// outbox or DLQ that dies with the process, and, clustered, about a
// store the instances cannot all reach, from what each store factory
// says of itself.
func TestStoreWarningsFollowTheFactorysLocality(t *testing.T) {
	reg, err := bundledRegistry()
	if err != nil {
		t.Fatal(err)
	}
	const doc = `
bridge: {id: unit, instance_id: a, deployment: %s}
receivers:
  - {id: in, type: http, settings: {listen: "127.0.0.1:1"}}
senders:
  - {id: out, type: webhook, settings: {url: "http://127.0.0.1:1/x"}}
bindings:
  - {id: b, sender_id: out}
routes:
  - {id: r, receiver_id: in, delivery_mode: shared_outbox, bindings: [b]}
stores:
  outbox: {type: %s%s}
  dlq: {type: %s%s}
  lease: {type: %s%s}
`
	sqlite := `, settings: {path: /tmp/never-opened.db, shared: true}`
	dynamo := `, settings: {region: us-east-1, endpoint: "http://127.0.0.1:1"}`
	for _, tc := range []struct {
		name, deployment, typ, settings string
		want                            []string
	}{
		{"memory, standalone", "standalone", "memory", "", []string{"stores.outbox.type", "stores.dlq.type"}},
		{"memory, clustered", "clustered", "memory", "", []string{"stores.outbox.type", "stores.dlq.type", "stores.outbox.type", "stores.dlq.type", "stores.lease.type"}},
		{"sqlite, standalone", "standalone", "sqlite", sqlite, nil},
		{"sqlite, clustered", "clustered", "sqlite", sqlite, []string{"stores.outbox.type", "stores.dlq.type", "stores.lease.type"}},
		{"dynamodb, clustered", "clustered", "dynamodb", dynamo, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := config.Parse(fmt.Appendf(nil, doc, tc.deployment, tc.typ, tc.settings, tc.typ, tc.settings, tc.typ, tc.settings))
			if err != nil {
				t.Fatal(err)
			}
			warns, _ := Validate(f, reg, nil)
			var got []string
			for _, w := range warns {
				if len(w.Path) > 7 && w.Path[:7] == "stores." {
					got = append(got, w.Path)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("store warnings (-want +got):\n%s\n%v", diff, warns)
			}
		})
	}
}
