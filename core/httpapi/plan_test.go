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
		RoutesAdded: []string{"new"}, RoutesRemoved: []string{"old"}, RoutesChanged: []string{"orders"}, RoutesAffected: []string{},
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
	// A route that uses a changed sender, processor or receiver is
	// affected though its own entry is the same.
	uses := func(url, proc, listen string) map[string]any {
		return map[string]any{
			"receivers":  []any{map[string]any{"id": "in", "settings": map[string]any{"listen": listen}}},
			"senders":    []any{map[string]any{"id": "hook", "settings": map[string]any{"url": url}}},
			"bindings":   []any{map[string]any{"id": "to-hook", "sender_id": "hook"}},
			"processors": map[string]any{"shape": map[string]any{"type": proc}},
			"routes": []any{
				map[string]any{"id": "by-binding", "receiver_id": "other", "bindings": []any{"to-hook"}},
				map[string]any{"id": "by-processor", "receiver_id": "other", "processors": []any{"shape"}},
				map[string]any{"id": "by-receiver", "receiver_id": "in"},
				map[string]any{"id": "untouched", "receiver_id": "other"},
			},
		}
	}
	for _, tt := range []struct {
		name     string
		proposed map[string]any
		want     []string
	}{
		{"sender", uses("http://b", "transform", ":1"), []string{"by-binding"}},
		{"processor", uses("http://a", "filter", ":1"), []string{"by-processor"}},
		{"receiver", uses("http://a", "transform", ":2"), []string{"by-receiver"}},
	} {
		if diff := cmp.Diff(tt.want, planReload(uses("http://a", "transform", ":1"), tt.proposed).RoutesAffected); diff != "" {
			t.Errorf("%s changes: affected routes (-want +got)\n%s", tt.name, diff)
		}
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
			map[string]any{"routes_added": []any{"b"}, "routes_removed": []any{}, "routes_changed": []any{}, "routes_affected": []any{},
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
