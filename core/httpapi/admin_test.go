package httpapi

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
)

func TestStatus(t *testing.T) {
	b := &fakeBackend{status: Status{BridgeID: "br", InstanceID: "i-1", Deployment: "clustered", Version: "v1.2.3",
		StartedAt: base, Uptime: 90*time.Second + 5*time.Millisecond + 7, Role: RoleActive, RouteCount: 4, ConfigGeneration: 2}}
	admin, _ := newTestServer(t, b).Handlers()
	got := call(t, admin, http.MethodGet, "/api/v1/admin/status", adminKey, "")
	want := reply{200, map[string]any{"bridge_id": "br", "instance_id": "i-1", "deployment": "clustered",
		"version": "v1.2.3", "started_at": "2026-03-01T12:00:00Z", "uptime": "1m30.005s", "uptime_seconds": 90.005,
		"role": "active", "routes": 4.0, "config_generation": 2.0}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

func TestConfigGet(t *testing.T) {
	b := &fakeBackend{config: map[string]any{"bridge": map[string]any{"id": "br"}, "http": map[string]any{"admin_api_key": "[REDACTED]"}}}
	admin, _ := newTestServer(t, b).Handlers()
	got := call(t, admin, http.MethodGet, "/api/v1/admin/config", adminKey, "")
	want := reply{200, map[string]any{"bridge": map[string]any{"id": "br"}, "http": map[string]any{"admin_api_key": "[REDACTED]"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

func TestConfigValidate(t *testing.T) {
	b := &fakeBackend{validation: ValidationResult{Problems: []Problem{{Path: "routes[0].receiver_id", Message: "unknown receiver"}}}}
	admin, _ := newTestServer(t, b).Handlers()
	const doc = "routes:\n  - id: r\n"
	got := []reply{
		call(t, admin, http.MethodPost, "/api/v1/admin/config/validate", adminKey, doc),
		call(t, admin, http.MethodPost, "/api/v1/admin/config/validate", adminKey, ""),
	}
	want := []reply{
		{200, map[string]any{"valid": false, "warnings": []any{},
			"problems": []any{map[string]any{"path": "routes[0].receiver_id", "message": "unknown receiver"}}}},
		{400, map[string]any{"error": map[string]any{"code": "INVALID_PAYLOAD", "message": "post the YAML document to validate as the request body"}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	if diff := cmp.Diff([]string{doc}, b.validated); diff != "" {
		t.Errorf("backend saw (-want +got)\n%s", diff)
	}
}

func TestReload(t *testing.T) {
	tests := []struct {
		name string
		body string
		res  ReloadResult
		err  error
		want reply
	}{
		{
			name: "re-read the file", body: "",
			res: ReloadResult{Generation: 3, Changed: []string{"orders"}, RestartRequired: []Problem{{Path: "http.admin_addr", Message: "takes effect after a restart"}}},
			want: reply{200, map[string]any{"generation": 3.0, "added": []any{}, "removed": []any{}, "changed": []any{"orders"},
				"restart_required": []any{map[string]any{"path": "http.admin_addr", "message": "takes effect after a restart"}}}},
		},
		{
			name: "posted document", body: "bridge: {id: x}\n",
			res:  ReloadResult{Generation: 4, Added: []string{"a"}, Removed: []string{"b"}},
			want: reply{200, map[string]any{"generation": 4.0, "added": []any{"a"}, "removed": []any{"b"}, "changed": []any{}, "restart_required": []any{}}},
		},
		{
			name: "refused", body: "routes: 7\n",
			res: ReloadResult{Problems: []Problem{{Path: "routes", Message: "must be a list"}}},
			err: fault.ErrInvalidConfig.WithMessage("configuration has 1 problem"),
			want: reply{400, map[string]any{"error": map[string]any{"code": "INVALID_CONFIG", "message": "configuration has 1 problem",
				"problems": []any{map[string]any{"path": "routes", "message": "must be a list"}}}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &fakeBackend{reloadRes: tt.res, reloadErr: tt.err}
			admin, _ := newTestServer(t, b).Handlers()
			got := call(t, admin, http.MethodPost, "/api/v1/admin/reload", adminKey, tt.body)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
			if diff := cmp.Diff([]string{tt.body}, b.reloadedWith); diff != "" {
				t.Errorf("backend saw (-want +got)\n%s", diff)
			}
		})
	}
}

func TestBodyLimits(t *testing.T) {
	b := &fakeBackend{dlq: seedDLQ(t, 1)}
	admin, _ := newTestServer(t, b).Handlers()
	big := strings.Repeat("a", MaxConfigBody+1)
	for _, p := range []string{"/api/v1/admin/config/validate", "/api/v1/admin/reload"} {
		if got := call(t, admin, http.MethodPost, p, adminKey, big).Status; got != 413 {
			t.Errorf("%s: status %d, want 413", p, got)
		}
	}
	if got := call(t, admin, http.MethodPost, "/api/v1/admin/config/validate", adminKey, big[:MaxConfigBody]).Status; got != 200 {
		t.Errorf("exactly the limit: status %d, want 200", got)
	}
	jsonBig := `{"route":"` + strings.Repeat("a", MaxJSONBody) + `","confirm":true}`
	if got := call(t, admin, http.MethodPost, "/api/v1/admin/dlq/purge", adminKey, jsonBig).Status; got != 413 {
		t.Errorf("purge: status %d, want 413", got)
	}
	if len(b.validated) != 1 || len(b.reloadedWith) != 0 {
		t.Errorf("backend called with oversize bodies: %d validate, %d reload", len(b.validated), len(b.reloadedWith))
	}
}

func TestStatusOf(t *testing.T) {
	tests := []struct {
		err  error
		want int
	}{
		{fault.ErrNotFound, 404},
		{fault.ErrInvalidConfig, 400},
		{fault.ErrAlreadyExists, 409},
		{fault.ErrUnavailable, 503},
		{fault.ErrTimeout, 504},
		{fault.ErrNotSupported, 501},
		{fault.ErrPoisonMessage, 422},
		{fault.ErrInternal, 500},
		{http.ErrServerClosed, 500},
	}
	for _, tt := range tests {
		if got := statusOf(tt.err); got != tt.want {
			t.Errorf("%v: %d, want %d", tt.err, got, tt.want)
		}
	}
}
