package httpapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

// openAPIDoc is the part of an OpenAPI document this test reads.
type openAPIDoc struct {
	OpenAPI string                    `yaml:"openapi"`
	Paths   map[string]map[string]any `yaml:"paths"`
}

var httpMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// documented returns "METHOD path" for every operation in the document.
func documented(t *testing.T, file string) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "openapi", file))
	if err != nil {
		t.Fatal(err)
	}
	var doc openAPIDoc
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("%s: openapi %q, want 3.1.0", file, doc.OpenAPI)
	}
	var ops []string
	seenIDs := map[any]bool{}
	for path, item := range doc.Paths {
		for key, v := range item {
			if !slices.Contains(httpMethods, key) {
				continue
			}
			op, _ := v.(map[string]any)
			if op["responses"] == nil || op["operationId"] == nil {
				t.Errorf("%s: %s %s lacks responses or operationId", file, key, path)
			}
			if seenIDs[op["operationId"]] {
				t.Errorf("%s: operationId %v used twice", file, op["operationId"])
			}
			seenIDs[op["operationId"]] = true
			ops = append(ops, strings.ToUpper(key)+" "+path)
		}
	}
	slices.Sort(ops)
	return ops
}

func served(eps []endpoint) []string {
	var out []string
	for _, e := range eps {
		out = append(out, e.method+" "+e.path)
	}
	slices.Sort(out)
	return out
}

func TestOpenAPIMatchesRouter(t *testing.T) {
	s := newTestServer(t, &fakeBackend{dlq: seedDLQ(t, 1)})
	admin, monitor := s.Handlers()
	for _, tt := range []struct {
		file string
		eps  []endpoint
		h    http.Handler
	}{
		{"admin.yaml", s.adminEndpoints(), admin},
		{"monitor.yaml", s.monitorEndpoints(), monitor},
	} {
		t.Run(tt.file, func(t *testing.T) {
			docs := documented(t, tt.file)
			if diff := cmp.Diff(served(tt.eps), docs); diff != "" {
				t.Errorf("served (-) versus documented (+):\n%s", diff)
			}
			// Every documented operation reaches a handler: not the JSON
			// 404 for unknown paths and not a 405.
			for _, op := range docs {
				method, path, _ := strings.Cut(op, " ")
				path = strings.ReplaceAll(path, "{id}", "e1")
				if path == "/api/v1/admin/events" {
					// A stream runs until its client goes; this one has
					// gone already, so it sends one snapshot and ends.
					ctx, cancel := context.WithCancel(t.Context())
					cancel()
					rec := httptest.NewRecorder()
					req := httptest.NewRequestWithContext(ctx, method, path, nil)
					req.Header.Set("Authorization", "Bearer "+adminKey)
					tt.h.ServeHTTP(rec, req)
					if rec.Code != http.StatusOK {
						t.Errorf("%s: %d %s", op, rec.Code, rec.Body)
					}
					continue
				}
				rec := serve(t, tt.h, method, path, adminKey, `{"confirm":true}`)
				if rec.Code == http.StatusMethodNotAllowed || strings.Contains(rec.Body.String(), "no endpoint at") {
					t.Errorf("%s is documented but not routed: %d %s", op, rec.Code, rec.Body)
				}
			}
		})
	}
}
