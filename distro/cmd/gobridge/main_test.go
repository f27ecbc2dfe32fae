package main

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer safe to read while the demo logs into it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

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
		{name: "demo rejects a negative rate", args: []string{"demo", "-rate", "-1"}, wantCode: 1, wantStderr: "-rate must not be negative"},
		{name: "demo rejects an unknown flag", args: []string{"demo", "-bogus"}, wantCode: 1, wantStderr: "flag provided but not defined: -bogus"},
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

// TestDemoMovesMessagesAndStopsCleanly runs the demo until its context is
// cancelled and checks that it moved messages and left none in flight.
func TestDemoMovesMessagesAndStopsCleanly(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var out bytes.Buffer
	errOut := &lockedBuffer{}
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"demo", "-rate", "0"}, &out, errOut) }()

	// Wait for the first progress report, then interrupt.
	deadline := time.After(10 * time.Second)
	for !strings.Contains(errOut.String(), "msg=progress") {
		select {
		case <-deadline:
			t.Fatalf("no progress report; stderr:\n%s", errOut.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("demo exit code %d; stderr:\n%s", code, errOut.String())
	}
	log := errOut.String()
	if !strings.Contains(log, `msg="demo stopped"`) || strings.Contains(log, "acked=0 ") {
		t.Errorf("demo did not report moved messages:\n%s", log)
	}
}
