package config

import (
	"os"
	"testing"
)

func mustRead(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// preview validates with the clustering keys accepted, so that their rules
// can be tested although Validate refuses them until clustering lands.
var preview = ValidateOptions{clusterPreview: true}
