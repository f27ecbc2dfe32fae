package sqs

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// stubOp answers one call of the JSON protocol: the decoded request body
// in, a status and a body out.
type stubOp func(req map[string]any) (int, any)

// stubSQS is an httptest server that speaks the SQS JSON protocol with
// canned answers per operation, and counts calls. It shows the paths the
// emulator cannot: partial batch failures, throttling, receive counts.
type stubSQS struct {
	srv *httptest.Server
	mu  sync.Mutex
	ops map[string]stubOp
	n   map[string]int
	// latency delays every answer, as a network round trip would.
	latency time.Duration
	// conns counts the connections clients opened.
	conns atomic.Int64
	// decode reads a request body; nil decodes all of it into a map.
	decode func(io.Reader) map[string]any
}

func newStub(t *testing.T, ops map[string]stubOp) *stubSQS {
	t.Helper()
	s := &stubSQS{ops: ops, n: map[string]int{}}
	s.srv = newBenchServer(s)
	t.Cleanup(s.srv.Close)
	return s
}

// newBenchServer starts the HTTP server of s.
func newBenchServer(s *stubSQS) *httptest.Server {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	srv.Start()
	return srv
}

func (s *stubSQS) serve(w http.ResponseWriter, r *http.Request) {
	op := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "AmazonSQS.")
	var req map[string]any
	if s.decode != nil {
		req = s.decode(r.Body)
	} else {
		_ = json.NewDecoder(r.Body).Decode(&req)
	}
	s.mu.Lock()
	s.n[op]++
	f := s.ops[op]
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	if f == nil {
		w.WriteHeader(400)
		_ = json.NewEncoder(w).Encode(map[string]string{"__type": "com.amazonaws.sqs#UnsupportedOperation", "message": op})
		return
	}
	if s.latency > 0 {
		time.Sleep(s.latency) // stands for the network round trip
	}
	status, body := f(req)
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

// calls returns how often op was called.
func (s *stubSQS) calls(op string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n[op]
}

// client returns an SDK client for the stub that does not retry, so that
// each call the transport makes is one request. Its HTTP client is
// NewClient's.
func (s *stubSQS) client() *sqs.Client {
	return sqs.New(sqs.Options{
		Region:                           "us-east-1",
		BaseEndpoint:                     aws.String(s.srv.URL),
		Credentials:                      credentials.NewStaticCredentialsProvider("test", "test", ""),
		RetryMaxAttempts:                 1,
		HTTPClient:                       keepIdleConns(nil),
		DisableMessageChecksumValidation: true,
	})
}

// apiError is an error answer of the JSON protocol.
func apiError(code, msg string) (int, any) {
	return 400, map[string]string{"__type": "com.amazonaws.sqs#" + code, "message": msg}
}

// entries returns the Entries of a batch request.
func entries(req map[string]any) []map[string]any {
	raw, _ := req["Entries"].([]any)
	out := make([]map[string]any, len(raw))
	for i, e := range raw {
		out[i], _ = e.(map[string]any)
	}
	return out
}

const stubQueue = "https://sqs.us-east-1.amazonaws.com/123456789012/q"
