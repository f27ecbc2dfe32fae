package dynamodb

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	miniserver "github.com/truora/minidyn/server"

	"github.com/gobridge-oss/gobridge/core/clock"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// emulator is minidyn's DynamoDB server behind httptest, so the SDK talks
// to it over the real wire path. minidyn has no TTL calls; the wrapper
// answers them as DynamoDB would (tools/dynamoemu does the same).
type emulator struct {
	URL    string
	server *miniserver.Server
	tables atomic.Int64
}

func newEmulator(t testing.TB) *emulator {
	t.Helper()
	e := &emulator{server: miniserver.NewServer()}
	srv := httptest.NewServer(http.HandlerFunc(e.serve))
	t.Cleanup(srv.Close)
	e.URL = srv.URL
	return e
}

func (e *emulator) serve(w http.ResponseWriter, r *http.Request) {
	op := r.Header.Get("X-Amz-Target")
	op = op[strings.LastIndex(op, ".")+1:]
	switch op {
	case "UpdateTimeToLive":
		var in struct {
			TimeToLiveSpecification json.RawMessage
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		_ = json.NewEncoder(w).Encode(map[string]any{"TimeToLiveSpecification": in.TimeToLiveSpecification})
	default:
		e.server.ServeHTTP(w, r)
	}
}

// prefix returns a table prefix no other store of this emulator used, so
// each harness starts with empty tables.
func (e *emulator) prefix() string { return fmt.Sprintf("t%d_", e.tables.Add(1)) }

// config is the configuration of a store on the emulator with the tables
// of prefix.
func (e *emulator) config(prefix string) Config {
	return Config{
		Region: "us-east-1", Endpoint: e.URL, AccessKeyID: "test", SecretAccessKey: "test",
		TablePrefix: prefix, CreateTables: true, StaleClaimAge: testStaleClaimAge,
	}
}

// testStaleClaimAge is the stale-claim age of the conformance stores.
const testStaleClaimAge = 45 * time.Second

// testStart is the fake clock's start.
func testStart() time.Time { return time.Date(2031, time.May, 6, 7, 8, 9, 123456789, time.UTC) }

// open opens a store with the tables of prefix on a fake clock, with no
// clock skew so that leases expire exactly on the fake clock.
func (e *emulator) open(t testing.TB, prefix string, clk *clock.Fake, opts ...Option) *Store {
	t.Helper()
	opts = append([]Option{WithClock(clk), WithClockSkew(0)}, opts...)
	s, err := Open(t.Context(), e.config(prefix), opts...)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s
}

// records builds n records of partition with payloads of size bytes.
func records(partition string, n, size int) []ports.OutboxRecord {
	out := make([]ports.OutboxRecord, n)
	for i := range out {
		p := make([]byte, size)
		for j := range p {
			p[j] = byte('a' + (i+j)%26)
		}
		env := messaging.NewEnvelope("orders.created", p)
		env.SetHeader("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
		out[i] = ports.OutboxRecord{Partition: partition, RouteID: "orders", BindingID: "to-hook",
			Address: "orders", Envelope: env}
	}
	return out
}

func ids(recs []ports.OutboxRecord) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.ID
	}
	return out
}

// wantClaimed claims partition with the zero token and compares the IDs.
func wantClaimed(t *testing.T, s *Store, partition string, want []string) {
	t.Helper()
	got, err := s.Claim(t.Context(), partition, ports.LeaseToken{}, len(want)+10)
	if err != nil {
		t.Fatalf("Claim: %v", err)
	}
	if diff := cmp.Diff(want, ids(got)); diff != "" {
		t.Errorf("claimed IDs (-want +got):\n%s", diff)
	}
}
