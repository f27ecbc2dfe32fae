package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

const (
	adminKey   = "admin-key-0123456789"
	monitorKey = "monitor-key-0123456789"
)

// memDLQ is a minimal in-test DLQ store: entries in write order, the
// cursor is the sequence number of the last entry returned.
type memDLQ struct {
	mu      sync.Mutex
	seq     int
	entries []seqEntry
}

type seqEntry struct {
	seq int
	e   ports.DLQEntry
}

func (m *memDLQ) Write(_ context.Context, e ports.DLQEntry) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seq++
	if e.ID == "" {
		e.ID = "e" + strconv.Itoa(m.seq)
	}
	m.entries = append(m.entries, seqEntry{m.seq, e})
	return nil
}

func matches(f ports.DLQFilter, e ports.DLQEntry) bool {
	return (f.RouteID == "" || f.RouteID == e.RouteID) &&
		(f.Category == "" || f.Category == e.Category) &&
		(f.From.IsZero() || !e.LastFailureAt.Before(f.From)) &&
		(f.To.IsZero() || e.LastFailureAt.Before(f.To))
}

func (m *memDLQ) List(_ context.Context, f ports.DLQFilter, cursor string, limit int) (ports.DLQPage, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	after := 0
	if cursor != "" {
		n, err := strconv.Atoi(cursor)
		if err != nil {
			return ports.DLQPage{}, fault.ErrInvalidPayload.WithMessage("bad cursor")
		}
		after = n
	}
	if limit <= 0 {
		limit = 100
	}
	var p ports.DLQPage
	for _, se := range m.entries {
		if se.seq <= after || !matches(f, se.e) {
			continue
		}
		if len(p.Entries) == limit {
			p.NextCursor = strconv.Itoa(after)
			return p, nil
		}
		p.Entries = append(p.Entries, se.e)
		after = se.seq
	}
	return p, nil
}

func (m *memDLQ) Get(_ context.Context, id string) (ports.DLQEntry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, se := range m.entries {
		if se.e.ID == id {
			return se.e, nil
		}
	}
	return ports.DLQEntry{}, fault.ErrNotFound.WithMessage("no DLQ entry " + id)
}

func (m *memDLQ) Delete(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, se := range m.entries {
		if se.e.ID == id {
			m.entries = append(m.entries[:i], m.entries[i+1:]...)
			return nil
		}
	}
	return fault.ErrNotFound.WithMessage("no DLQ entry " + id)
}

func (m *memDLQ) Purge(_ context.Context, f ports.DLQFilter) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	kept := m.entries[:0]
	n := 0
	for _, se := range m.entries {
		if matches(f, se.e) {
			n++
			continue
		}
		kept = append(kept, se)
	}
	m.entries = kept
	return n, nil
}

func (m *memDLQ) Count(_ context.Context, f ports.DLQFilter) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, se := range m.entries {
		if matches(f, se.e) {
			n++
		}
	}
	return n, nil
}

func (m *memDLQ) ids() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := []string{}
	for _, se := range m.entries {
		out = append(out, se.e.ID)
	}
	return out
}

// base is the time every fixture is relative to.
var base = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// seedDLQ writes n entries: routes alternate a/b, categories alternate
// permanent/expired, LastFailureAt is base + i minutes.
func seedDLQ(t *testing.T, n int) *memDLQ {
	t.Helper()
	m := &memDLQ{}
	for i := range n {
		env := messaging.NewEnvelope("orders.created", []byte(`{"n":`+strconv.Itoa(i)+`}`))
		env.ID = "m" + strconv.Itoa(i+1)
		env.CreatedAt = base
		route, cat := "a", ports.DLQPermanent
		if i%2 == 1 {
			route, cat = "b", ports.DLQExpired
		}
		at := base.Add(time.Duration(i) * time.Minute)
		e := ports.DLQEntry{Envelope: env, RouteID: route, BindingID: "out", Category: cat,
			ErrorClass: "permanent", ErrorCode: "NOT_FOUND", ErrorMessage: "gone",
			Attempts: 1, FirstFailureAt: at, LastFailureAt: at}
		if err := m.Write(t.Context(), e); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// fakeBackend answers with canned values and records what it was asked.
type fakeBackend struct {
	mu         sync.Mutex
	status     Status
	routes     []RouteStatus
	readiness  Readiness
	deep       DeepHealth
	dlq        ports.DLQStore // nil: no DLQ
	redriveErr map[string]error
	config     map[string]any
	validation ValidationResult
	reloadRes  ReloadResult
	reloadErr  error
	metrics    http.Handler

	redriven     []string
	validated    []string
	reloadedWith []string
}

func (f *fakeBackend) Status(context.Context) Status         { return f.status }
func (f *fakeBackend) Routes(context.Context) []RouteStatus  { return f.routes }
func (f *fakeBackend) Readiness(context.Context) Readiness   { return f.readiness }
func (f *fakeBackend) DeepHealth(context.Context) DeepHealth { return f.deep }
func (f *fakeBackend) Config(context.Context) map[string]any { return f.config }
func (f *fakeBackend) Metrics() http.Handler                 { return f.metrics }

func (f *fakeBackend) DLQ() ports.DLQStore {
	if f.dlq == nil {
		return nil
	}
	return f.dlq
}

// Redrive deletes the entry and returns "new-<id>", or the configured
// error for that id (an error with a new ID for "again").
func (f *fakeBackend) Redrive(ctx context.Context, id string) (string, error) {
	f.mu.Lock()
	f.redriven = append(f.redriven, id)
	err := f.redriveErr[id]
	f.mu.Unlock()
	if err != nil {
		return "", err
	}
	if _, err := f.dlq.Get(ctx, id); err != nil {
		return "", err
	}
	if err := f.dlq.Delete(ctx, id); err != nil {
		return "", err
	}
	return "new-" + id, nil
}

func (f *fakeBackend) ValidateConfig(_ context.Context, yaml []byte) ValidationResult {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.validated = append(f.validated, string(yaml))
	return f.validation
}

func (f *fakeBackend) Reload(_ context.Context, yaml []byte) (ReloadResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reloadedWith = append(f.reloadedWith, string(yaml))
	return f.reloadRes, f.reloadErr
}

// newTestServer builds a server over b with both keys.
func newTestServer(t *testing.T, b Backend) *Server {
	t.Helper()
	s, err := New(Config{AdminAddr: "127.0.0.1:0", MonitorAddr: "127.0.0.1:0",
		AdminAPIKey: adminKey, MonitorAPIKey: monitorKey, Logger: slog.New(slog.DiscardHandler)}, b)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// reply is a response reduced to what tests compare.
type reply struct {
	Status int
	Body   map[string]any
}

// call sends one request to h and decodes the JSON answer.
func call(t *testing.T, h http.Handler, method, path, key, body string) reply {
	t.Helper()
	rec := serve(t, h, method, path, key, body)
	r := reply{Status: rec.Code}
	raw, _ := io.ReadAll(rec.Body)
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &r.Body); err != nil {
			t.Fatalf("%s %s: body is not a JSON object: %v: %s", method, path, err, raw)
		}
	}
	return r
}

func serve(t *testing.T, h http.Handler, method, path, key, body string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequestWithContext(t.Context(), method, path, strings.NewReader(body))
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}
