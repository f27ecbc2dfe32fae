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

	miniserver "github.com/truora/minidyn/server"

	"github.com/gobridge-oss/gobridge/core/clock"
)

func fmtType(v any) string { return fmt.Sprintf("%T", v) }

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
