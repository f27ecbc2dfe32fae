// Command gobridge-builder generates, and by default compiles, a gobridge
// binary bundling the plugins a manifest lists:
//
//	gobridge-builder --manifest manifest.yaml [--output DIR] [--skip-compile]
//
// It writes main.go, components.go and go.mod into the output directory
// (default: a directory named after dist.name beside the manifest), runs
// `go mod tidy` and `go build` there, and prints the binary's absolute
// path. Exit codes: 0 done, 1 the build failed, 2 bad command line, 3 the
// manifest has problems (all of them are listed).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/gobridge-oss/gobridge/tools/builder"
)

// Exit codes.
const (
	exitOK       = 0
	exitFailed   = 1
	exitUsage    = 2
	exitManifest = 3
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the command with its arguments and streams, returning the exit
// code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gobridge-builder", flag.ContinueOnError)
	fs.SetOutput(stderr)
	manifest := fs.String("manifest", "", "the distro manifest (YAML, required)")
	output := fs.String("output", "", "directory for the generated module (default: dist.name beside the manifest)")
	skip := fs.Bool("skip-compile", false, "write the sources only; do not run go mod tidy and go build")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: gobridge-builder --manifest FILE [--output DIR] [--skip-compile]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if *manifest == "" || fs.NArg() > 0 {
		fs.Usage()
		return exitUsage
	}
	m, err := builder.Load(*manifest)
	if err != nil {
		if ps, ok := errors.AsType[builder.Problems](err); ok {
			fmt.Fprintf(stderr, "%s: %d problem(s):\n", *manifest, len(ps))
			for _, p := range ps {
				fmt.Fprintf(stderr, "  %s\n", p)
			}
			return exitManifest
		}
		fmt.Fprintf(stderr, "gobridge-builder: %v\n", err)
		return exitManifest
	}
	out := *output
	if out == "" {
		out = filepath.Join(filepath.Dir(*manifest), m.Dist.Name)
	}
	files, err := m.Generate(out)
	if err == nil {
		err = builder.Write(out, files)
	}
	if err != nil {
		fmt.Fprintf(stderr, "gobridge-builder: %v\n", err)
		return exitFailed
	}
	if *skip {
		abs, _ := filepath.Abs(out)
		fmt.Fprintf(stdout, "%s\n", abs)
		return exitOK
	}
	bin, err := m.Compile(ctx, out, nil)
	if err != nil {
		fmt.Fprintf(stderr, "gobridge-builder: %v\n", err)
		if m.LocalRepo == "" {
			fmt.Fprintln(stderr, "gobridge-builder: the gobridge modules are not published yet; set local_repo to a gobridge checkout")
		}
		return exitFailed
	}
	fmt.Fprintln(stdout, bin)
	return exitOK
}
