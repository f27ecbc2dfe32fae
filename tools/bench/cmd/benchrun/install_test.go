package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The runs start copies of the binaries in the scratch directory, with
// the same content and executable; an unset path stays unset, and a
// missing binary is an error naming it.
func TestInstallCopiesTheBinaries(t *testing.T) {
	src := t.TempDir()
	bridge, fwd := filepath.Join(src, "gobridge"), filepath.Join(src, "fwd")
	for path, body := range map[string]string{bridge: "bridge-bytes", fwd: "fwd-bytes"} {
		if err := os.WriteFile(path, []byte(body), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	e := &env{work: t.TempDir(), bridgeBin: bridge, fwdBin: fwd}
	if err := e.install(); err != nil {
		t.Fatal(err)
	}
	if e.minimalBin != "" {
		t.Errorf("minimal binary %q, want none", e.minimalBin)
	}
	got := map[string]string{}
	for name, path := range map[string]string{"gobridge": e.bridgeBin, "fwd": e.fwdBin} {
		if !strings.HasPrefix(path, filepath.Join(e.work, "installed")+string(filepath.Separator)) {
			t.Errorf("%s runs from %s, not from the scratch directory", name, path)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		got[name] = string(b) + " " + fi.Mode().Perm().String()
	}
	want := map[string]string{"gobridge": "bridge-bytes -rwxr-xr-x", "fwd": "fwd-bytes -rwxr-xr-x"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("installed copies (-want +got):\n%s", diff)
	}

	missing := &env{work: t.TempDir(), bridgeBin: filepath.Join(src, "nope")}
	if err := missing.install(); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("install of a missing binary: %v, want an error naming it", err)
	}
}
