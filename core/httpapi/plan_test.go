package httpapi

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPlanReload(t *testing.T) {
	running := map[string]any{
		"bridge": map[string]any{"id": "b1"},
		"routes": []any{
			map[string]any{"id": "orders", "bindings": []any{"x"}},
			map[string]any{"id": "old", "bindings": []any{"x"}},
		},
		"senders": []any{map[string]any{"id": "hook", "settings": map[string]any{"url": "http://a/refuse", "token": "***"}}},
	}
	proposed := map[string]any{
		"bridge": map[string]any{"id": "b1"},
		"routes": []any{
			map[string]any{"id": "orders", "bindings": []any{"x", "y"}},
			map[string]any{"id": "new", "bindings": []any{"y"}},
		},
		"senders": []any{map[string]any{"id": "hook", "settings": map[string]any{"url": "http://a/accept", "token": "***"}}},
	}
	want := ReloadPlan{
		RoutesAdded: []string{"new"}, RoutesRemoved: []string{"old"}, RoutesChanged: []string{"orders"},
		Changes: []ConfigChange{
			{Path: "routes[orders].bindings", Before: []any{"x"}, After: []any{"x", "y"}},
			{Path: "routes[old]", Before: map[string]any{"id": "old", "bindings": []any{"x"}}},
			{Path: "routes[new]", After: map[string]any{"id": "new", "bindings": []any{"y"}}},
			{Path: "senders[hook].settings.url", Before: "http://a/refuse", After: "http://a/accept"},
		},
	}
	if diff := cmp.Diff(want, planReload(running, proposed)); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	same := planReload(running, running)
	if len(same.Changes)+len(same.RoutesAdded)+len(same.RoutesRemoved)+len(same.RoutesChanged) != 0 {
		t.Errorf("a document equal to the running one: %+v, want no change", same)
	}
}

// previewer is a backend that previews every document as proposed.
type previewer struct {
	*fakeBackend
	proposed map[string]any
}

func (p *previewer) PreviewConfig(context.Context, []byte) (map[string]any, error) {
	return p.proposed, nil
}

func TestValidateReturnsThePlan(t *testing.T) {
	run := map[string]any{"routes": []any{map[string]any{"id": "a"}}}
	for _, tt := range []struct {
		name     string
		b        Backend
		wantPlan any
	}{
		{"previewer", &previewer{fakeBackend: &fakeBackend{config: run, validation: ValidationResult{Valid: true}},
			proposed: map[string]any{"routes": []any{map[string]any{"id": "a"}, map[string]any{"id": "b"}}}},
			map[string]any{"routes_added": []any{"b"}, "routes_removed": []any{}, "routes_changed": []any{},
				"changes": []any{map[string]any{"path": "routes[b]", "after": map[string]any{"id": "b"}}}}},
		{"invalid document", &previewer{fakeBackend: &fakeBackend{config: run, validation: ValidationResult{Valid: false}},
			proposed: map[string]any{}}, nil},
		{"backend without preview", &fakeBackend{config: run, validation: ValidationResult{Valid: true}}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			admin, _ := newTestServer(t, tt.b).Handlers()
			got := call(t, admin, http.MethodPost, "/api/v1/admin/config/validate", adminKey, "routes: []")
			if got.Status != http.StatusOK {
				t.Fatalf("status %d: %v", got.Status, got.Body)
			}
			if diff := cmp.Diff(tt.wantPlan, got.Body["plan"]); diff != "" {
				t.Errorf("plan (-want +got)\n%s", diff)
			}
		})
	}
}
