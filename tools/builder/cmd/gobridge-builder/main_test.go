package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// repoRoot is the gobridge checkout the tests run in.
func repoRoot(t *testing.T) string {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("..", "..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

func TestRun(t *testing.T) {
	root := repoRoot(t)
	const dist = "dist: {name: mini, module: example.com/mini}\n"
	const mqtt = "plugins: [{module: github.com/gobridge-oss/gobridge/transports/mqtt}]\n"
	tests := []struct {
		name       string
		manifest   string // written to DIR/m.yaml; "" writes none
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
		wantFiles  []string // under DIR
	}{
		{name: "no flags", wantCode: exitUsage, wantStderr: "usage: gobridge-builder --manifest FILE"},
		{name: "unknown flag", args: []string{"--bogus"}, wantCode: exitUsage, wantStderr: "flag provided but not defined: -bogus"},
		{name: "stray argument", args: []string{"--manifest", "DIR/m.yaml", "extra"}, manifest: dist + mqtt, wantCode: exitUsage, wantStderr: "usage:"},
		{name: "missing manifest", args: []string{"--manifest", "DIR/none.yaml"}, wantCode: exitManifest, wantStderr: "no such file"},
		{name: "every problem at once", manifest: "dist: {name: mini}\nplugins: [{module: github.com/gobridge-oss/gobridge/transports/kafka}]\nextra: 1\n",
			args: []string{"--manifest", "DIR/m.yaml"}, wantCode: exitManifest,
			wantStderr: "DIR/m.yaml: 3 problem(s):\n  extra: unknown key (line 3)"},
		{name: "skip compile, default output", manifest: dist + mqtt + "local_repo: " + root + "\n",
			args: []string{"--manifest", "DIR/m.yaml", "--skip-compile"}, wantCode: exitOK, wantStdout: "DIR/mini\n",
			wantFiles: []string{"m.yaml", "mini/components.go", "mini/go.mod", "mini/main.go"}},
		{name: "skip compile, output and package_dir", manifest: "dist: {name: mini, module: example.com/mini, package_dir: cmd/mini}\n" + mqtt,
			args: []string{"--manifest", "DIR/m.yaml", "--output", "DIR/out", "--skip-compile"}, wantCode: exitOK, wantStdout: "DIR/out\n",
			wantFiles: []string{"m.yaml", "out/cmd/mini/components.go", "out/cmd/mini/main.go", "out/go.mod"}},
		{name: "build failure shows go's error", manifest: dist + mqtt,
			args: []string{"--manifest", "DIR/m.yaml"}, wantCode: exitFailed,
			wantStderr: "gobridge-builder: go mod tidy: exit status 1\n",
			wantFiles:  []string{"m.yaml", "mini/components.go", "mini/go.mod", "mini/main.go"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Without a local_repo the modules are fetched; GOPROXY=off makes
			// that fail at once instead of asking the network.
			t.Setenv("GOPROXY", "off")
			dir := t.TempDir()
			if tc.manifest != "" {
				if err := os.WriteFile(filepath.Join(dir, "m.yaml"), []byte(tc.manifest), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			args := make([]string, len(tc.args))
			for i, a := range tc.args {
				args[i] = strings.ReplaceAll(a, "DIR", dir)
			}
			var stdout, stderr bytes.Buffer
			code := run(t.Context(), args, &stdout, &stderr)
			if code != tc.wantCode {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, tc.wantCode, stderr.String())
			}
			if want := strings.ReplaceAll(tc.wantStdout, "DIR", dir); stdout.String() != want {
				t.Errorf("stdout %q, want %q", stdout.String(), want)
			}
			if want := strings.ReplaceAll(tc.wantStderr, "DIR", dir); !strings.Contains(stderr.String(), want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
			}
			var files []string
			_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					rel, _ := filepath.Rel(dir, p)
					files = append(files, filepath.ToSlash(rel))
				}
				return nil
			})
			if diff := cmp.Diff(tc.wantFiles, files); tc.wantFiles != nil && diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
		})
	}
}
