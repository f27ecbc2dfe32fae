package httpapi

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReady(t *testing.T) {
	tests := []struct {
		name       string
		rd         Readiness
		query      string
		wantStatus int
		wantLevel  string
		wantReady  bool
	}{
		{"bare probe, full standalone", Readiness{LevelFull, RoleStandalone, ""}, "", 200, LevelFull, true},
		{"bare probe, subscribed", Readiness{LevelSubscribed, RoleStandalone, ""}, "", 503, LevelSubscribed, false},
		{"full asked, active full", Readiness{LevelFull, RoleActive, ""}, "?level=full", 200, LevelFull, true},
		{"connected asked, connected", Readiness{LevelConnected, RoleStandalone, ""}, "?level=connected", 200, LevelConnected, true},
		{"subscribed asked, connected", Readiness{LevelConnected, RoleStandalone, ""}, "?level=subscribed", 503, LevelConnected, false},
		{"nothing reached", Readiness{LevelNone, RoleStandalone, "sessions connecting"}, "?level=connected", 503, LevelNone, false},
		{"unknown level reported counts as none", Readiness{"bogus", RoleStandalone, ""}, "?level=connected", 503, LevelNone, false},
		{"standby capped: bare probe fails", Readiness{LevelFull, RoleStandby, ""}, "", 503, LevelSubscribed, false},
		{"standby capped: full fails", Readiness{LevelFull, RoleStandby, ""}, "?level=full", 503, LevelSubscribed, false},
		{"standby passes subscribed", Readiness{LevelFull, RoleStandby, ""}, "?level=subscribed", 200, LevelSubscribed, true},
		{"standby passes connected", Readiness{LevelSubscribed, RoleStandby, ""}, "?level=connected", 200, LevelSubscribed, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, monitor := newTestServer(t, &fakeBackend{readiness: tt.rd}).Handlers()
			got := call(t, monitor, http.MethodGet, "/api/v1/monitor/ready"+tt.query, "", "")
			requested := LevelFull
			if tt.query != "" {
				requested = tt.query[len("?level="):]
			}
			body := map[string]any{"ready": tt.wantReady, "level": tt.wantLevel, "requested": requested, "role": tt.rd.Role}
			if tt.rd.Detail != "" {
				body["detail"] = tt.rd.Detail
			}
			if diff := cmp.Diff(reply{tt.wantStatus, body}, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestReadyRejectsUnknownLevel(t *testing.T) {
	_, monitor := newTestServer(t, &fakeBackend{}).Handlers()
	for _, q := range []string{"?level=none", "?level=FULL", "?level=ready"} {
		if got := serve(t, monitor, http.MethodGet, "/api/v1/monitor/ready"+q, "", "").Code; got != 400 {
			t.Errorf("%s: status %d, want 400", q, got)
		}
	}
}

func TestHealthAndLive(t *testing.T) {
	_, monitor := newTestServer(t, &fakeBackend{}).Handlers()
	for _, p := range []string{"/api/v1/monitor/health", "/api/v1/monitor/live"} {
		got := call(t, monitor, http.MethodGet, p, "", "")
		if diff := cmp.Diff(reply{200, map[string]any{"status": "ok"}}, got); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", p, diff)
		}
	}
}

func TestDeepHealth(t *testing.T) {
	comps := func(states ...string) []Component {
		var out []Component
		for i, s := range states {
			out = append(out, Component{Kind: "session", ID: string(rune('a' + i)), Status: s})
		}
		return out
	}
	tests := []struct {
		name       string
		dh         DeepHealth
		wantStatus int
		want       string
	}{
		{"no components is up", DeepHealth{Role: RoleStandalone}, 200, HealthUp},
		{"all up", DeepHealth{Role: RoleActive, Components: comps(HealthUp, HealthUp)}, 200, HealthUp},
		{"worst wins: degraded", DeepHealth{Role: RoleActive, Components: comps(HealthUp, HealthDegraded)}, 200, HealthDegraded},
		{"worst wins: down", DeepHealth{Role: RoleStandby, Components: comps(HealthDegraded, HealthDown)}, 503, HealthDown},
		{"explicit status kept", DeepHealth{Status: HealthDegraded, Components: comps(HealthUp)}, 200, HealthDegraded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, monitor := newTestServer(t, &fakeBackend{deep: tt.dh}).Handlers()
			got := call(t, monitor, http.MethodGet, "/api/v1/monitor/deephealth", monitorKey, "")
			components := []any{}
			for _, c := range tt.dh.Components {
				components = append(components, map[string]any{"kind": c.Kind, "id": c.ID, "status": c.Status})
			}
			want := reply{tt.wantStatus, map[string]any{"status": tt.want, "role": tt.dh.Role,
				"components": components, "restart_required": []any{}}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestRoutesBothAPIs(t *testing.T) {
	b := &fakeBackend{routes: []RouteStatus{
		{ID: "orders", ReceiverID: "in", DeliveryMode: "direct_hold", DispatchMode: "single", Bindings: []string{"out"}, State: RouteRunning, InFlight: 3},
		{ID: "audit", ReceiverID: "in2", DeliveryMode: "shared_outbox", DispatchMode: "fan_out", State: RouteFailed, LastError: "boom"},
	}}
	admin, monitor := newTestServer(t, b).Handlers()
	want := reply{200, map[string]any{"routes": []any{
		map[string]any{"id": "orders", "receiver_id": "in", "delivery_mode": "direct_hold", "dispatch_mode": "single",
			"bindings": []any{"out"}, "state": "running", "in_flight": 3.0},
		map[string]any{"id": "audit", "receiver_id": "in2", "delivery_mode": "shared_outbox", "dispatch_mode": "fan_out",
			"bindings": []any{}, "state": "failed", "in_flight": 0.0, "last_error": "boom"},
	}}}
	for _, got := range []reply{
		call(t, admin, http.MethodGet, "/api/v1/admin/routes", adminKey, ""),
		call(t, monitor, http.MethodGet, "/api/v1/monitor/routes", monitorKey, ""),
	} {
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got)\n%s", diff)
		}
	}
}

func TestMetricsServed(t *testing.T) {
	const text = "# TYPE gobridge_up gauge\ngobridge_up 1\n"
	b := &fakeBackend{metrics: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		_, _ = w.Write([]byte(text))
	})}
	_, monitor := newTestServer(t, b).Handlers()
	for _, p := range []string{"/metrics", "/api/v1/monitor/metrics"} {
		rec := serve(t, monitor, http.MethodGet, p, monitorKey, "")
		got := []any{rec.Code, rec.Body.String()}
		if diff := cmp.Diff([]any{200, text}, got); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", p, diff)
		}
	}
	_, monitor = newTestServer(t, &fakeBackend{}).Handlers()
	if got := serve(t, monitor, http.MethodGet, "/metrics", monitorKey, "").Code; got != 404 {
		t.Errorf("metrics without a handler: status %d, want 404", got)
	}
}

func TestUnknownPathAndMethod(t *testing.T) {
	admin, _ := newTestServer(t, &fakeBackend{}).Handlers()
	rec := serve(t, admin, http.MethodGet, "/api/v1/admin/nope", adminKey, "")
	if rec.Code != 404 {
		t.Errorf("unknown path: %d", rec.Code)
	}
	rec = serve(t, admin, http.MethodPut, "/api/v1/admin/dlq/x", adminKey, "")
	got := []any{rec.Code, rec.Header().Get("Allow")}
	if diff := cmp.Diff([]any{405, "DELETE, GET"}, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

// TestDeepHealthRestartRequired: the settings the backend names are
// listed as they are, in order.
func TestDeepHealthRestartRequired(t *testing.T) {
	dh := DeepHealth{Role: RoleActive, Components: []Component{{Kind: "rollout", ID: "refuse", Status: HealthUp}},
		RestartRequired: []string{"http.admin_addr", "routes.orders"}}
	_, monitor := newTestServer(t, &fakeBackend{deep: dh}).Handlers()
	got := call(t, monitor, http.MethodGet, "/api/v1/monitor/deephealth", monitorKey, "")
	want := reply{200, map[string]any{"status": HealthUp, "role": RoleActive,
		"components":       []any{map[string]any{"kind": "rollout", "id": "refuse", "status": HealthUp}},
		"restart_required": []any{"http.admin_addr", "routes.orders"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}
