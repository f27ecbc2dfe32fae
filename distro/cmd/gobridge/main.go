// Command gobridge is the curated bridge binary.
//
// Usage:
//
//	gobridge run [-c FILE] [-data-dir DIR]   run a configuration (default: the quickstart)
//	gobridge validate -c FILE                report every problem of a configuration
//	gobridge config schema                   print the JSON Schema of the configuration file
//	gobridge dlq list|show|redrive|delete|purge   inspect and repair the DLQ via the admin API
//	gobridge version                         print the binary's and every bundled module's version
//	gobridge demo                            run a self-contained in-memory demo route
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Exit codes.
const (
	exitOK      = 0
	exitFailed  = 1
	exitUsage   = 2
	exitInvalid = 3 // the configuration has problems
)

// run dispatches a sub-command and returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "run":
		return cmdRun(ctx, args[1:], stdout, stderr)
	case "validate":
		return cmdValidate(args[1:], stdout, stderr)
	case "config":
		return cmdConfig(args[1:], stdout, stderr)
	case "dlq":
		return cmdDLQ(ctx, args[1:], stdout, stderr)
	case "demo":
		return cmdDemo(ctx, args[1:], stderr)
	case "version":
		fmt.Fprint(stdout, versionReport())
		return exitOK
	case "help", "-h", "--help":
		usage(stdout)
		return exitOK
	default:
		fmt.Fprintf(stderr, "gobridge: unknown command %q\n\n", args[0])
		usage(stderr)
		return exitUsage
	}
}

func usage(w io.Writer) {
	fmt.Fprint(w, `usage: gobridge <command> [flags]

commands:
  run       run a configuration file (-c FILE); without -c, the embedded
            quickstart (HTTP in, filter, transform, SSE out, SQLite outbox).
            SIGINT/SIGTERM drain and stop; SIGHUP re-reads the file.
  validate  check a configuration file (-c FILE) and list every problem;
            exits 3 when there is one
  config schema
            print the JSON Schema of the configuration file, for editors
  dlq       list, show, redrive, delete or purge dead-lettered messages
            through the admin API (gobridge dlq -h)
  version   print the binary's version and every bundled module's
  demo      run a self-contained in-memory route and report throughput
`)
}
