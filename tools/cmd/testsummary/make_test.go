package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The Makefile's targets, run as a user runs them, on one small module
// (MODULES=...) so that each stays quick.

// repoRoot is the monorepo's root, from this package's directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "Makefile")); err != nil {
		t.Skipf("no Makefile at %s", root)
	}
	return root
}

func need(t *testing.T, tools ...string) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs make")
	}
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
}

// TestMakeBuildLeavesNoBinary: go build of a module that is one main
// package writes its binary into the module; make build must not.
func TestMakeBuildLeavesNoBinary(t *testing.T) {
	need(t, "make")
	root := repoRoot(t)
	left := filepath.Join(root, "tools", "dynamoemu", "dynamoemu")
	t.Cleanup(func() { _ = os.Remove(left) })
	out, err := exec.Command("make", "-C", root, "build", "MODULES=tools/dynamoemu").CombinedOutput()
	if err != nil {
		t.Fatalf("make build: %v\n%s", err, out)
	}
	if _, err := os.Stat(left); err == nil {
		t.Errorf("make build left %s behind", left)
	}
}

// TestMakeTestPrintsSummary: make test-unit ends with a table of each
// module's result and the skipped tests.
func TestMakeTestPrintsSummary(t *testing.T) {
	need(t, "make")
	root := repoRoot(t)
	out, err := exec.Command("make", "-C", root, "test-unit", "MODULES=tools/dynamoemu").CombinedOutput()
	if err != nil {
		t.Fatalf("make test-unit: %v\n%s", err, out)
	}
	for _, want := range []string{"== test tools/dynamoemu", "ok  \tgithub.com/gobridge-oss/gobridge/tools/dynamoemu", "== summary", "ok    tools/dynamoemu", "total: 1 modules, 0 failed"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// freePort returns a TCP port nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// syncBuffer is a bytes.Buffer safe to read while a process writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestMakeRunCtrlC: Ctrl-C on make run, in a terminal (script(1) gives it
// one; ^C on its input is the terminal's interrupt), stops the bridge
// cleanly and make exits 0 without an error line.
func TestMakeRunCtrlC(t *testing.T) {
	need(t, "make", "script")
	root := repoRoot(t)
	raw, err := os.ReadFile(filepath.Join(root, "examples", "quickstart.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := string(raw)
	for _, port := range []string{"8080", "8081", "8082", "8090"} {
		cfg = strings.ReplaceAll(cfg, "127.0.0.1:"+port, fmt.Sprintf("127.0.0.1:%d", freePort(t)))
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "quickstart.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	line := fmt.Sprintf("make -C %s run RUN_ARGS='-c %s -data-dir %s'", root, path, dir)
	cmd := exec.Command("script", "-qefc", line, "/dev/null")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.After(3 * time.Minute) // the first make run builds the binary
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for !strings.Contains(out.String(), "bridge running") {
		select {
		case err := <-exited:
			t.Fatalf("make run ended before the bridge ran: %v\n%s", err, out.String())
		case <-deadline:
			_ = cmd.Process.Kill()
			t.Fatalf("the bridge did not start:\n%s", out.String())
		case <-tick.C:
		}
	}
	if _, err := io.WriteString(stdin, "\x03"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("make run after Ctrl-C: %v, want exit 0\n%s", err, out.String())
		}
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		t.Fatalf("make run did not stop after Ctrl-C:\n%s", out.String())
	}
	if s := out.String(); !strings.Contains(s, "bridge stopped") || strings.Contains(s, "make: ***") {
		t.Errorf("want a clean stop and no make error line:\n%s", s)
	}
}
