package httpapi

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// codedDLQ holds e1..e7 where e1, e4 and e7 failed with TIMEOUT and the
// others with NOT_FOUND.
func codedDLQ(t *testing.T) *memDLQ {
	t.Helper()
	m := &memDLQ{}
	for i := range 7 {
		code := "NOT_FOUND"
		if i%3 == 0 {
			code = "TIMEOUT"
		}
		if err := m.Write(t.Context(), ports.DLQEntry{RouteID: "a", ErrorCode: code, Category: ports.DLQPermanent}); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

func TestDLQListByCode(t *testing.T) {
	for _, tt := range []struct {
		name  string
		query url.Values
		want  [][]string
	}{
		{"one page", url.Values{"code": {"TIMEOUT"}}, [][]string{{"e1", "e4", "e7"}}},
		{"pages of two", url.Values{"code": {"TIMEOUT"}, "limit": {"2"}}, [][]string{{"e1", "e4"}, {"e7"}}},
		{"pages of one", url.Values{"code": {"NOT_FOUND"}, "limit": {"1"}}, [][]string{{"e2"}, {"e3"}, {"e5"}, {"e6"}, {}}},
		{"no match", url.Values{"code": {"THROTTLED"}}, [][]string{{}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			admin, _ := newTestServer(t, &fakeBackend{dlq: codedDLQ(t)}).Handlers()
			if diff := cmp.Diff(tt.want, listIDs(t, admin, tt.query)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// rerouter is a backend that can redrive to another route.
type rerouter struct {
	*fakeBackend
	to []string
}

func (r *rerouter) RedriveTo(ctx context.Context, id, route string) (string, error) {
	r.to = append(r.to, id+"->"+route)
	return r.Redrive(ctx, id)
}

func TestDLQRedriveSelection(t *testing.T) {
	for _, tt := range []struct {
		name       string
		backend    func(*memDLQ) Backend
		body       string
		wantStatus int
		wantLeft   []string
	}{
		{"ids", func(m *memDLQ) Backend { return &fakeBackend{dlq: m} }, `{"ids":["e2","e5"]}`, 200,
			[]string{"e1", "e3", "e4", "e6", "e7"}},
		{"by code", func(m *memDLQ) Backend { return &fakeBackend{dlq: m} }, `{"code":"TIMEOUT"}`, 200,
			[]string{"e2", "e3", "e5", "e6"}},
		{"ids with a filter", func(m *memDLQ) Backend { return &fakeBackend{dlq: m} }, `{"ids":["e2"],"route":"a"}`, 400,
			[]string{"e1", "e2", "e3", "e4", "e5", "e6", "e7"}},
		{"another route unsupported", func(m *memDLQ) Backend { return &fakeBackend{dlq: m} }, `{"ids":["e2"],"to_route":"b"}`, 501,
			[]string{"e1", "e2", "e3", "e4", "e5", "e6", "e7"}},
		{"another route", func(m *memDLQ) Backend { return &rerouter{fakeBackend: &fakeBackend{dlq: m}} }, `{"ids":["e3"],"to_route":"b"}`, 200,
			[]string{"e1", "e2", "e4", "e5", "e6", "e7"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := codedDLQ(t)
			b := tt.backend(m)
			admin, _ := newTestServer(t, b).Handlers()
			if got := call(t, admin, http.MethodPost, "/api/v1/admin/dlq/redrive", adminKey, tt.body); got.Status != tt.wantStatus {
				t.Errorf("status %d, want %d: %v", got.Status, tt.wantStatus, got.Body)
			}
			if diff := cmp.Diff(tt.wantLeft, m.ids()); diff != "" {
				t.Errorf("left (-want +got)\n%s", diff)
			}
			if rr, ok := b.(*rerouter); ok {
				if diff := cmp.Diff([]string{"e3->b"}, rr.to); diff != "" {
					t.Errorf("redriven to (-want +got)\n%s", diff)
				}
			}
		})
	}
}

func TestDLQRedriveOneToAnotherRoute(t *testing.T) {
	m := codedDLQ(t)
	b := &rerouter{fakeBackend: &fakeBackend{dlq: m}}
	admin, _ := newTestServer(t, b).Handlers()
	got := call(t, admin, http.MethodPost, "/api/v1/admin/dlq/e1/redrive", adminKey, `{"to_route":"b"}`)
	if diff := cmp.Diff(reply{200, map[string]any{"id": "e1", "new_id": "new-e1"}}, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	if diff := cmp.Diff([]string{"e1->b"}, b.to); diff != "" {
		t.Errorf("redriven to (-want +got)\n%s", diff)
	}
}

func TestDLQPurgeByCode(t *testing.T) {
	m := codedDLQ(t)
	admin, _ := newTestServer(t, &fakeBackend{dlq: m}).Handlers()
	got := call(t, admin, http.MethodPost, "/api/v1/admin/dlq/purge", adminKey, `{"confirm":true,"code":"NOT_FOUND"}`)
	if diff := cmp.Diff(reply{200, map[string]any{"purged": 4.0}}, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	if diff := cmp.Diff([]string{"e1", "e4", "e7"}, m.ids()); diff != "" {
		t.Errorf("left (-want +got)\n%s", diff)
	}
}
