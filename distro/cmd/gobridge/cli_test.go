package main

import (
	"bytes"
	"context"
	"io"
	"sync"
	"testing"

	"github.com/gobridge-oss/gobridge/core/registry"
	"github.com/gobridge-oss/gobridge/service/cli"
)

// Exit codes, as the tests name them.
const (
	exitOK      = cli.ExitOK
	exitFailed  = cli.ExitFailed
	exitUsage   = cli.ExitUsage
	exitInvalid = cli.ExitInvalid
)

// run is the binary's command line in-process.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return cli.Main(ctx, settings(), args, stdout, stderr)
}

// bundled is a registry of every factory the binary bundles.
func bundled(t testing.TB) *registry.Registry {
	t.Helper()
	r := registry.New()
	if err := r.Add(components()...); err != nil {
		t.Fatal(err)
	}
	return r
}

// lockedBuffer is a bytes.Buffer safe to read while a process writes to it.
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
