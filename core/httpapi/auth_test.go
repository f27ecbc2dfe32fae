package httpapi

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAuthMatrix(t *testing.T) {
	b := &fakeBackend{dlq: seedDLQ(t, 1), readiness: Readiness{Level: LevelFull, Role: RoleStandalone},
		metrics: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("{}")) })}
	admin, monitor := newTestServer(t, b).Handlers()
	const (
		none        = ""
		bad         = "not-the-key-at-all-0000"
		noChallenge = ""
		challenge   = `Bearer realm="gobridge"`
		invalid     = `Bearer realm="gobridge", error="invalid_token"`
	)
	tests := []struct {
		name      string
		h         http.Handler
		path, key string
		status    int
		challenge string
	}{
		{"health needs no key", monitor, "/api/v1/monitor/health", none, 200, noChallenge},
		{"live needs no key", monitor, "/api/v1/monitor/live", none, 200, noChallenge},
		{"ready needs no key", monitor, "/api/v1/monitor/ready", none, 200, noChallenge},
		{"health ignores a wrong key", monitor, "/api/v1/monitor/health", bad, 200, noChallenge},
		{"deephealth without key", monitor, "/api/v1/monitor/deephealth", none, 401, challenge},
		{"deephealth wrong key", monitor, "/api/v1/monitor/deephealth", bad, 401, invalid},
		{"deephealth monitor key", monitor, "/api/v1/monitor/deephealth", monitorKey, 200, noChallenge},
		{"deephealth admin key", monitor, "/api/v1/monitor/deephealth", adminKey, 200, noChallenge},
		{"monitor routes monitor key", monitor, "/api/v1/monitor/routes", monitorKey, 200, noChallenge},
		{"monitor metrics without key", monitor, "/api/v1/monitor/metrics", none, 401, challenge},
		{"metrics without key", monitor, "/metrics", none, 401, challenge},
		{"metrics admin key", monitor, "/metrics", adminKey, 200, noChallenge},
		{"status without key", admin, "/api/v1/admin/status", none, 401, challenge},
		{"status wrong key", admin, "/api/v1/admin/status", bad, 401, invalid},
		{"status monitor key", admin, "/api/v1/admin/status", monitorKey, 401, invalid},
		{"status admin key", admin, "/api/v1/admin/status", adminKey, 200, noChallenge},
		{"dlq monitor key", admin, "/api/v1/admin/dlq", monitorKey, 401, invalid},
		{"dlq admin key", admin, "/api/v1/admin/dlq", adminKey, 200, noChallenge},
		{"key prefix is not the key", admin, "/api/v1/admin/status", adminKey[:len(adminKey)-1], 401, invalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := serve(t, tt.h, http.MethodGet, tt.path, tt.key, "")
			got := struct {
				Status    int
				Challenge string
			}{rec.Code, rec.Header().Get("WWW-Authenticate")}
			want := struct {
				Status    int
				Challenge string
			}{tt.status, tt.challenge}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestAuthErrorBody(t *testing.T) {
	admin, _ := newTestServer(t, &fakeBackend{}).Handlers()
	got := call(t, admin, http.MethodGet, "/api/v1/admin/status", "", "")
	want := reply{Status: 401, Body: map[string]any{"error": map[string]any{
		"code": "NOT_AUTHORIZED", "message": "an API key is required: send Authorization: Bearer <key>"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

func TestBearerScheme(t *testing.T) {
	tests := []struct {
		header string
		want   string
		ok     bool
	}{
		{"Bearer abc", "abc", true},
		{"bearer abc", "abc", true},
		{"BEARER  abc ", "abc", true},
		{"Basic abc", "", false},
		{"Bearer ", "", false},
		{"Bearer", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		r, _ := http.NewRequest(http.MethodGet, "/", nil)
		r.Header.Set("Authorization", tt.header)
		tok, ok := bearer(r)
		if diff := cmp.Diff([]any{tt.want, tt.ok}, []any{tok, ok}); diff != "" {
			t.Errorf("%q: (-want +got)\n%s", tt.header, diff)
		}
	}
}

func TestMonitorKeyDefaultsToAdminOnly(t *testing.T) {
	s, err := New(Config{AdminAddr: ":0", AdminAPIKey: adminKey}, &fakeBackend{})
	if err != nil {
		t.Fatal(err)
	}
	_, monitor := s.Handlers()
	got := []int{
		serve(t, monitor, http.MethodGet, "/api/v1/monitor/routes", adminKey, "").Code,
		serve(t, monitor, http.MethodGet, "/api/v1/monitor/routes", monitorKey, "").Code,
	}
	if diff := cmp.Diff([]int{200, 401}, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

func TestKeySourceRotation(t *testing.T) {
	current := adminKey
	s, err := New(Config{AdminAddr: ":0", KeySource: func() (string, string) { return current, "" }}, &fakeBackend{})
	if err != nil {
		t.Fatal(err)
	}
	admin, _ := s.Handlers()
	before := serve(t, admin, http.MethodGet, "/api/v1/admin/status", adminKey, "").Code
	current = "rotated-key-0123456789"
	after := []int{
		serve(t, admin, http.MethodGet, "/api/v1/admin/status", adminKey, "").Code,
		serve(t, admin, http.MethodGet, "/api/v1/admin/status", current, "").Code,
	}
	if diff := cmp.Diff([]int{200, 401, 200}, append([]int{before}, after...)); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}
