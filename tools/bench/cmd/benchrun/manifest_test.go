package main

import (
	"path/filepath"
	"testing"
)

// TestMinimalManifestsGenerate runs tools/builder on every minimal-*
// manifest of the harness (without compiling the result), so that a
// manifest -minimal-manifest can take does not rot unnoticed.
func TestMinimalManifestsGenerate(t *testing.T) {
	repo, err := findRepo()
	if err != nil {
		t.Fatal(err)
	}
	manifests, err := filepath.Glob(filepath.Join(repo, "tools", "bench", "minimal*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(manifests) < 3 {
		t.Fatalf("found %d minimal manifests, want at least 3: %v", len(manifests), manifests)
	}
	for _, m := range manifests {
		t.Run(filepath.Base(m), func(t *testing.T) {
			cmd := builderCmd(t.Context(), repo, m, t.TempDir(), "--skip-compile")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("gobridge-builder --manifest %s: %v\n%s", m, err, out)
			}
		})
	}
}
