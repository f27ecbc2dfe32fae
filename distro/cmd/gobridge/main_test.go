package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gobridge-oss/gobridge/service/cli"
	"github.com/google/go-cmp/cmp"
)

func TestRun(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{name: "no command prints usage", wantCode: 2, wantStderr: "usage: gobridge"},
		{name: "help", args: []string{"help"}, wantCode: 0, wantStdout: "usage: gobridge"},
		{name: "unknown command", args: []string{"fly"}, wantCode: 2, wantStderr: `unknown command "fly"`},
		{name: "version", args: []string{"version"}, wantCode: 0, wantStdout: "gobridge "},
		{name: "run rejects an unknown flag", args: []string{"run", "-bogus"}, wantCode: 2, wantStderr: "flag provided but not defined: -bogus"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(context.Background(), tc.args, &out, &errOut)
			if code != tc.wantCode {
				t.Errorf("exit code %d, want %d (stderr: %s)", code, tc.wantCode, errOut.String())
			}
			if !strings.Contains(out.String(), tc.wantStdout) {
				t.Errorf("stdout %q does not contain %q", out.String(), tc.wantStdout)
			}
			if !strings.Contains(errOut.String(), tc.wantStderr) {
				t.Errorf("stderr %q does not contain %q", errOut.String(), tc.wantStderr)
			}
		})
	}
}

// TestReadmeListsEveryCommand compares the distro README's command table
// with the commands the binary's help prints, both ways.
func TestReadmeListsEveryCommand(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var inReadme []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z ]+)` \\|").FindAllStringSubmatch(string(readme), -1) {
		inReadme = append(inReadme, m[1])
	}
	var help bytes.Buffer
	if code := run(t.Context(), []string{"--help"}, &help, &help); code != exitOK {
		t.Fatalf("--help exit %d", code)
	}
	var inHelp []string
	for _, c := range cli.Commands() {
		if !strings.Contains(help.String(), "\n  "+c) {
			t.Errorf("--help does not describe %q:\n%s", c, help.String())
		}
		inHelp = append(inHelp, c)
	}
	if diff := cmp.Diff(inHelp, inReadme); diff != "" {
		t.Errorf("commands: help (-) vs distro/README.md (+):\n%s", diff)
	}
}
