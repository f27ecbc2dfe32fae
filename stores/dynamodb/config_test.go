package dynamodb

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/clock"
	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/registry"
)

func TestValidate(t *testing.T) {
	cases := []struct {
		name string
		cfg  Config
		want []string // fields named by the problems, in order
	}{
		{"defaults", Config{}, nil},
		{"everything set", Config{Region: "eu-west-1", Endpoint: "https://dynamodb.eu-west-1.amazonaws.com",
			AccessKeyID: "a", SecretAccessKey: "s", TablePrefix: "prod.bridge-", BillingMode: BillingProvisioned,
			ReadCapacity: 5, WriteCapacity: 5}, nil},
		{"bad values", Config{Region: "Frankfurt", Endpoint: "ftp://x", AccessKeyID: "a", SessionToken: "t",
			TablePrefix: "no spaces", BillingMode: "spot", StaleClaimAge: -1, ClockSkew: -1, DLQRetention: -1,
			MaxAttempts: -1, ClaimConcurrency: -2},
			[]string{"region", "endpoint", "access_key_id", "table_prefix", "billing_mode", "stale_claim_age",
				"clock_skew", "dlq_retention", "max_attempts", "claim_concurrency"}},
		{"capacity on demand", Config{ReadCapacity: 5}, []string{"read_capacity"}},
		{"provisioned without capacity", Config{BillingMode: BillingProvisioned}, []string{"read_capacity", "write_capacity"}},
		{"session token alone", Config{SessionToken: "t"}, []string{"session_token"}},
		{"prefix of the longest length", Config{TablePrefix: strings.Repeat("a", 249)}, nil},
		{"prefix too long", Config{TablePrefix: strings.Repeat("a", 250)}, []string{"table_prefix"}},
		{"prefix with a non-ASCII letter", Config{TablePrefix: "bridgé_"}, []string{"table_prefix"}},
		{"endpoint with credentials", Config{Endpoint: "http://u:p@localhost:8000"}, []string{"endpoint"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.cfg.Validate()
			var got []string
			if err != nil {
				if !errors.Is(err, fault.ErrInvalidConfig) {
					t.Errorf("Validate = %v, want INVALID_CONFIG", err)
				}
				for line := range strings.SplitSeq(err.Error(), "\n") {
					rest := line[strings.Index(line, "dynamodb store: ")+len("dynamodb store: "):]
					got = append(got, rest[:strings.Index(rest, ":")])
				}
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("fields with problems (-want +got):\n%s\n%v", diff, err)
			}
		})
	}
}

// TestMissingTables checks that a store that may not create tables names
// each missing table, and one with another key schema, at Open.
func TestMissingTables(t *testing.T) {
	emu := newEmulator(t)
	prefix := emu.prefix()
	cfg := emu.config(prefix)
	cfg.CreateTables = false
	api := dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(emu.URL), Credentials: aws.AnonymousCredentials{}})
	// The lease table exists, with a sort key it must not have.
	_, err := api.CreateTable(t.Context(), &dynamodb.CreateTableInput{
		TableName: aws.String(prefix + "lease"),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeN}},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
		BillingMode: types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(t.Context(), cfg)
	if !errors.Is(err, fault.ErrInvalidConfig) {
		t.Fatalf("Open = %v, want INVALID_CONFIG", err)
	}
	for _, want := range []string{
		"table " + prefix + "outbox does not exist; create it with partition key pk (S), sort key sk (S), or set create_tables: true",
		"table " + prefix + "dlq does not exist; create it with partition key pk (S), sort key sk (N)",
		"table " + prefix + "lease has another key schema; the store needs partition key pk (S)",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Open error lacks %q:\n%v", want, err)
		}
	}
}

// TestCreateTables opens a store that creates its tables in provisioned
// mode, then a second one on the same tables, as a second bridge would.
func TestCreateTables(t *testing.T) {
	emu := newEmulator(t)
	cfg := emu.config(emu.prefix())
	cfg.BillingMode, cfg.ReadCapacity, cfg.WriteCapacity = BillingProvisioned, 5, 5
	for i := range 2 {
		if _, err := Open(t.Context(), cfg, WithClock(clock.NewFake(testStart()))); err != nil {
			t.Fatalf("Open %d: %v", i, err)
		}
	}
}

func TestFactory(t *testing.T) {
	f := Factory()
	if f.Type() != FactoryType {
		t.Fatalf("Type = %q", f.Type())
	}
	if _, err := f.Decode(map[string]any{"billing_mode": "spot"}); !errors.Is(err, fault.ErrInvalidConfig) {
		t.Errorf("Decode of a bad billing mode = %v, want INVALID_CONFIG", err)
	}
	if _, err := f.Decode(map[string]any{"completed_retention": "1h"}); err == nil {
		t.Error("Decode of an unknown key succeeded")
	}
	emu := newEmulator(t)
	cfg, err := f.Decode(map[string]any{"endpoint": emu.URL, "region": "us-east-1", "access_key_id": "test",
		"secret_access_key": "test", "create_tables": true, "table_prefix": emu.prefix(), "stale_claim_age": "10s"})
	if err != nil {
		t.Fatal(err)
	}
	built, err := f.Build(context.Background(), cfg, registry.Settings{ID: "shared"})
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	if s, ok := built.(*Store); !ok || s.staleClaimAge.String() != "10s" {
		t.Errorf("Build = %T %+v, want a *Store with a 10s stale-claim age", built, built)
	}
}

// TestItemTooLarge checks that a message over DynamoDB's item limit is
// refused before it is sent, as PAYLOAD_TOO_LARGE, for both the outbox and
// the DLQ.
func TestItemTooLarge(t *testing.T) {
	emu := newEmulator(t)
	cfg := emu.config(emu.prefix())
	cfg.PayloadCompression = CompressionNone
	s, err := Open(t.Context(), cfg, WithClock(clock.NewFake(testStart())))
	if err != nil {
		t.Fatal(err)
	}
	recs := records("p", 2, 1024)
	recs[1].Envelope.SetPayload(make([]byte, 401*1024))
	if err := s.Persist(t.Context(), recs); !errors.Is(err, fault.ErrPayloadTooLarge) {
		t.Errorf("Persist of a 401 KiB payload = %v, want PAYLOAD_TOO_LARGE", err)
	}
	if n, err := s.Depth(t.Context(), "p"); err != nil || n != 0 {
		t.Errorf("Depth = %d, %v; want 0 (nothing of the batch stored)", n, err)
	}
	if err := s.Write(t.Context(), ports.DLQEntry{Envelope: recs[1].Envelope}); !errors.Is(err, fault.ErrPayloadTooLarge) {
		t.Errorf("Write of a 401 KiB payload = %v, want PAYLOAD_TOO_LARGE", err)
	}
}
