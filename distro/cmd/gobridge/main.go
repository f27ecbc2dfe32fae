// Command gobridge is the curated bridge binary.
//
// Usage:
//
//	gobridge demo [-rate N] [-duration D]   run a self-contained demo route
//	gobridge version                        print the binary's version
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run dispatches a sub-command and returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	switch args[0] {
	case "demo":
		if err := demo(ctx, args[1:], log); err != nil {
			log.Error("demo failed", "err", err)
			return 1
		}
		return 0
	case "version":
		fmt.Fprintln(stdout, version())
		return 0
	case "help", "-h", "--help":
		usage(stdout)
		return 0
	default:
		fmt.Fprintf(stderr, "gobridge: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
}

func usage(w io.Writer) {
	fmt.Fprint(w, `usage: gobridge <command> [flags]

commands:
  demo      run a self-contained route from an in-memory source to in-memory
            targets and report throughput each second (Ctrl-C to stop)
  version   print the binary's version
`)
}

// version reports the main module's version from the build information.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "gobridge (unknown version)"
	}
	return "gobridge " + bi.Main.Version + " (" + bi.GoVersion + ")"
}
