package httpapi

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// listIDs pages through the DLQ listing with query q and returns the IDs
// page by page.
func listIDs(t *testing.T, h http.Handler, q url.Values) [][]string {
	t.Helper()
	var pages [][]string
	for range 20 {
		got := call(t, h, http.MethodGet, "/api/v1/admin/dlq?"+q.Encode(), adminKey, "")
		if got.Status != 200 {
			t.Fatalf("list: %+v", got)
		}
		page := []string{}
		for _, e := range got.Body["entries"].([]any) {
			page = append(page, e.(map[string]any)["id"].(string))
		}
		pages = append(pages, page)
		next := got.Body["next_cursor"].(string)
		if next == "" {
			return pages
		}
		q.Set("cursor", next)
	}
	t.Fatal("listing did not end")
	return nil
}

func TestDLQListPaginationAndFilters(t *testing.T) {
	tests := []struct {
		name  string
		query url.Values
		want  [][]string
	}{
		{"default limit takes all", url.Values{}, [][]string{{"e1", "e2", "e3", "e4", "e5", "e6", "e7"}}},
		{"pages of three", url.Values{"limit": {"3"}}, [][]string{{"e1", "e2", "e3"}, {"e4", "e5", "e6"}, {"e7"}}},
		{"route", url.Values{"route": {"b"}}, [][]string{{"e2", "e4", "e6"}}},
		{"category", url.Values{"category": {"permanent"}, "limit": {"2"}}, [][]string{{"e1", "e3"}, {"e5", "e7"}}},
		{"since inclusive", url.Values{"since": {"2026-03-01T12:05:00Z"}}, [][]string{{"e6", "e7"}}},
		{"until exclusive", url.Values{"until": {"2026-03-01T12:02:00Z"}}, [][]string{{"e1", "e2"}}},
		{"window and route", url.Values{"since": {"2026-03-01T12:01:00Z"}, "until": {"2026-03-01T12:05:00Z"}, "route": {"a"}}, [][]string{{"e3", "e5"}}},
		{"nothing matches", url.Values{"route": {"zzz"}}, [][]string{{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			admin, _ := newTestServer(t, &fakeBackend{dlq: seedDLQ(t, 7)}).Handlers()
			if diff := cmp.Diff(tt.want, listIDs(t, admin, tt.query)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestDLQListBadQuery(t *testing.T) {
	admin, _ := newTestServer(t, &fakeBackend{dlq: seedDLQ(t, 1)}).Handlers()
	for _, q := range []string{"limit=0", "limit=1001", "limit=x", "category=bogus", "since=yesterday",
		"until=2026-13-01", "since=2026-03-02T00:00:00Z&until=2026-03-01T00:00:00Z"} {
		got := call(t, admin, http.MethodGet, "/api/v1/admin/dlq?"+q, adminKey, "")
		code := got.Body["error"].(map[string]any)["code"]
		if diff := cmp.Diff([]any{400, "INVALID_PAYLOAD"}, []any{got.Status, code}); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", q, diff)
		}
	}
}

func TestDLQListView(t *testing.T) {
	admin, _ := newTestServer(t, &fakeBackend{dlq: seedDLQ(t, 1)}).Handlers()
	got := call(t, admin, http.MethodGet, "/api/v1/admin/dlq", adminKey, "")
	entry := map[string]any{
		"id": "e1", "route": "a", "binding": "out", "category": "permanent",
		"error":    map[string]any{"class": "permanent", "code": "NOT_FOUND", "message": "gone"},
		"attempts": 1.0, "first_failure_at": "2026-03-01T12:00:00Z", "last_failure_at": "2026-03-01T12:00:00Z",
		"message": map[string]any{"id": "m1", "subject": "orders.created", "created_at": "2026-03-01T12:00:00Z", "payload_size": 7.0},
	}
	want := reply{200, map[string]any{"entries": []any{entry}, "next_cursor": ""}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

func TestDLQShow(t *testing.T) {
	admin, _ := newTestServer(t, &fakeBackend{dlq: seedDLQ(t, 2)}).Handlers()
	got := call(t, admin, http.MethodGet, "/api/v1/admin/dlq/e2", adminKey, "")
	msg := got.Body["message"].(map[string]any)
	if diff := cmp.Diff([]any{200, `{"n":1}`, "utf-8"}, []any{got.Status, msg["payload"], msg["payload_encoding"]}); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	got = call(t, admin, http.MethodGet, "/api/v1/admin/dlq/nope", adminKey, "")
	if diff := cmp.Diff(reply{404, map[string]any{"error": map[string]any{"code": "NOT_FOUND", "message": "no DLQ entry nope"}}}, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

func TestDLQDelete(t *testing.T) {
	store := seedDLQ(t, 3)
	admin, _ := newTestServer(t, &fakeBackend{dlq: store}).Handlers()
	got := []reply{
		call(t, admin, http.MethodDelete, "/api/v1/admin/dlq/e2", adminKey, ""),
		call(t, admin, http.MethodDelete, "/api/v1/admin/dlq/e2", adminKey, ""),
	}
	want := []reply{
		{200, map[string]any{"id": "e2", "deleted": true}},
		{404, map[string]any{"error": map[string]any{"code": "NOT_FOUND", "message": "no DLQ entry e2"}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	if diff := cmp.Diff([]string{"e1", "e3"}, store.ids()); diff != "" {
		t.Errorf("left in store (-want +got)\n%s", diff)
	}
}

func TestDLQRedriveOne(t *testing.T) {
	store := seedDLQ(t, 2)
	b := &fakeBackend{dlq: store, redriveErr: map[string]error{"e2": fault.ErrUnavailable.WithMessage("bridge not running")}}
	admin, _ := newTestServer(t, b).Handlers()
	got := []reply{
		call(t, admin, http.MethodPost, "/api/v1/admin/dlq/e1/redrive", adminKey, ""),
		call(t, admin, http.MethodPost, "/api/v1/admin/dlq/e2/redrive", adminKey, ""),
		call(t, admin, http.MethodPost, "/api/v1/admin/dlq/e9/redrive", adminKey, ""),
	}
	want := []reply{
		{200, map[string]any{"id": "e1", "new_id": "new-e1"}},
		{503, map[string]any{"error": map[string]any{"code": "UNAVAILABLE", "message": "bridge not running"}}},
		{404, map[string]any{"error": map[string]any{"code": "NOT_FOUND", "message": "no DLQ entry e9"}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	if diff := cmp.Diff([]string{"e2"}, store.ids()); diff != "" {
		t.Errorf("left in store (-want +got)\n%s", diff)
	}
}

func TestDLQRedriveByFilter(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		failing  []string
		want     map[string]any
		redriven []string
		left     []string
	}{
		{
			name: "route filter", body: `{"route":"a"}`,
			want: map[string]any{"matched": 3.0, "redriven": 3.0, "failed": 0.0, "more": false, "failures": []any{},
				"results": []any{
					map[string]any{"id": "e1", "new_id": "new-e1"},
					map[string]any{"id": "e3", "new_id": "new-e3"},
					map[string]any{"id": "e5", "new_id": "new-e5"}}},
			redriven: []string{"e1", "e3", "e5"}, left: []string{"e2", "e4"},
		},
		{
			name: "limit with more left and one failure", body: `{"limit":2}`, failing: []string{"e2"},
			want: map[string]any{"matched": 2.0, "redriven": 1.0, "failed": 1.0, "more": true,
				"results":  []any{map[string]any{"id": "e1", "new_id": "new-e1"}},
				"failures": []any{map[string]any{"id": "e2", "error": map[string]any{"code": "POISON_MESSAGE", "message": "failed again"}}}},
			redriven: []string{"e1", "e2"}, left: []string{"e2", "e3", "e4", "e5"},
		},
		{
			name: "category and window", body: `{"category":"expired","since":"2026-03-01T12:02:00Z"}`,
			want: map[string]any{"matched": 1.0, "redriven": 1.0, "failed": 0.0, "more": false, "failures": []any{},
				"results": []any{map[string]any{"id": "e4", "new_id": "new-e4"}}},
			redriven: []string{"e4"}, left: []string{"e1", "e2", "e3", "e5"},
		},
		{
			name: "nothing matches", body: `{"route":"zzz"}`,
			want:     map[string]any{"matched": 0.0, "redriven": 0.0, "failed": 0.0, "more": false, "failures": []any{}, "results": []any{}},
			redriven: nil, left: []string{"e1", "e2", "e3", "e4", "e5"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := seedDLQ(t, 5)
			b := &fakeBackend{dlq: store, redriveErr: map[string]error{}}
			for _, id := range tt.failing {
				b.redriveErr[id] = fault.ErrPoisonMessage.WithMessage("failed again")
			}
			admin, _ := newTestServer(t, b).Handlers()
			got := call(t, admin, http.MethodPost, "/api/v1/admin/dlq/redrive", adminKey, tt.body)
			if diff := cmp.Diff(reply{200, tt.want}, got); diff != "" {
				t.Errorf("response (-want +got)\n%s", diff)
			}
			if diff := cmp.Diff(tt.redriven, b.redriven); diff != "" {
				t.Errorf("redriven (-want +got)\n%s", diff)
			}
			if diff := cmp.Diff(tt.left, store.ids()); diff != "" {
				t.Errorf("left (-want +got)\n%s", diff)
			}
		})
	}
}

func TestDLQPurge(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		status int
		purged float64
		left   []string
	}{
		{"empty body refused", ``, 400, 0, []string{"e1", "e2", "e3", "e4"}},
		{"filter without confirm refused", `{"route":"a"}`, 400, 0, []string{"e1", "e2", "e3", "e4"}},
		{"confirm false refused", `{"confirm":false}`, 400, 0, []string{"e1", "e2", "e3", "e4"}},
		{"unknown field refused", `{"confirm":true,"rout":"a"}`, 400, 0, []string{"e1", "e2", "e3", "e4"}},
		{"filtered purge", `{"route":"a","confirm":true}`, 200, 2, []string{"e2", "e4"}},
		{"purge all", `{"confirm":true}`, 200, 4, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := seedDLQ(t, 4)
			admin, _ := newTestServer(t, &fakeBackend{dlq: store}).Handlers()
			got := call(t, admin, http.MethodPost, "/api/v1/admin/dlq/purge", adminKey, tt.body)
			if got.Status != tt.status {
				t.Fatalf("status %d, want %d: %v", got.Status, tt.status, got.Body)
			}
			if tt.status == 200 {
				if diff := cmp.Diff(map[string]any{"purged": tt.purged}, got.Body); diff != "" {
					t.Errorf("(-want +got)\n%s", diff)
				}
			}
			if diff := cmp.Diff(tt.left, store.ids()); diff != "" {
				t.Errorf("left (-want +got)\n%s", diff)
			}
		})
	}
}

func TestDLQAbsent(t *testing.T) {
	admin, _ := newTestServer(t, &fakeBackend{}).Handlers()
	for _, rq := range []struct{ method, path, body string }{
		{http.MethodGet, "/api/v1/admin/dlq", ""},
		{http.MethodGet, "/api/v1/admin/dlq/e1", ""},
		{http.MethodDelete, "/api/v1/admin/dlq/e1", ""},
		{http.MethodPost, "/api/v1/admin/dlq/e1/redrive", ""},
		{http.MethodPost, "/api/v1/admin/dlq/redrive", "{}"},
		{http.MethodPost, "/api/v1/admin/dlq/purge", `{"confirm":true}`},
	} {
		got := call(t, admin, rq.method, rq.path, adminKey, rq.body)
		want := reply{404, map[string]any{"error": map[string]any{"code": "NOT_FOUND",
			"message": "no dead-letter queue store is configured on this bridge"}}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s %s: (-want +got)\n%s", rq.method, rq.path, diff)
		}
	}
}
