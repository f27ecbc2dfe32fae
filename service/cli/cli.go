// Package cli is the command line of a gobridge binary: run, validate,
// config schema, dlq and version, behind one entry point, so that a
// distro's main function is a few lines:
//
//	func main() {
//		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
//		code := cli.Main(ctx, cli.Settings{Name: "mybridge", Factories: components()}, os.Args[1:], os.Stdout, os.Stderr)
//		stop()
//		os.Exit(code)
//	}
//
// The binary holds exactly the factories it is given: nothing registers
// itself.
package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/gobridge-oss/gobridge/core/registry"
)

// Settings describe the binary the command line belongs to.
type Settings struct {
	// Name is the binary's name, used in usage and version output
	// (default "gobridge").
	Name string
	// Factories are the plugins the binary bundles. Required.
	Factories []registry.Factory
	// DefaultConfig is the configuration `run` uses without -c; nil makes
	// -c required. DefaultConfigName describes it in logs and usage
	// (default "the embedded default configuration").
	DefaultConfig     []byte
	DefaultConfigName string
}

// Exit codes of Main.
const (
	// ExitOK: the command succeeded.
	ExitOK = 0
	// ExitFailed: the command failed at run time.
	ExitFailed = 1
	// ExitUsage: the command line is wrong.
	ExitUsage = 2
	// ExitInvalid: the configuration has problems.
	ExitInvalid = 3
)

const (
	exitOK      = ExitOK
	exitFailed  = ExitFailed
	exitUsage   = ExitUsage
	exitInvalid = ExitInvalid
)

// app is one invocation: the settings with their defaults and the
// registry of the bundled factories.
type app struct {
	Settings
	reg *registry.Registry
}

// Main runs the command args names (args excludes the binary's name) and
// returns the process exit code. ctx ends a running bridge (drain, then
// stop); a distro cancels it on SIGINT and SIGTERM.
func Main(ctx context.Context, s Settings, args []string, stdout, stderr io.Writer) int {
	if s.Name == "" {
		s.Name = "gobridge"
	}
	if s.DefaultConfigName == "" {
		s.DefaultConfigName = "the embedded default configuration"
	}
	reg := registry.New()
	if err := reg.Add(s.Factories...); err != nil {
		fmt.Fprintf(stderr, "%s: the bundled factories: %v\n", s.Name, err)
		return exitFailed
	}
	a := &app{Settings: s, reg: reg}
	if len(args) == 0 {
		a.usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "run":
		return a.cmdRun(ctx, args[1:], stdout, stderr)
	case "validate":
		return a.cmdValidate(args[1:], stdout, stderr)
	case "config":
		return a.cmdConfig(args[1:], stdout, stderr)
	case "dlq":
		return cmdDLQ(ctx, args[1:], stdout, stderr)
	case "version":
		fmt.Fprint(stdout, a.versionReport())
		return exitOK
	case "help", "-h", "--help":
		a.usage(stdout)
		return exitOK
	default:
		fmt.Fprintf(stderr, "%s: unknown command %q\n\n", s.Name, args[0])
		a.usage(stderr)
		return exitUsage
	}
}

// Commands lists the commands Main knows, in the order usage shows them.
func Commands() []string {
	return []string{"run", "validate", "config schema", "dlq", "version", "help"}
}

func (a *app) usage(w io.Writer) {
	runDefault := "a configuration file (-c FILE, required)"
	if a.DefaultConfig != nil {
		runDefault = "a configuration file (-c FILE); without -c,\n            " + a.DefaultConfigName
	}
	fmt.Fprintf(w, `usage: %s <command> [flags]

commands:
  run       run %s.
            SIGINT/SIGTERM drain and stop; SIGHUP re-reads the file.
  validate  check a configuration file (-c FILE) and list every problem;
            exits 3 when there is one
  config schema
            print the JSON Schema of the configuration file, for editors
  dlq       list, show, redrive, delete or purge dead-lettered messages
            through the admin API (%s dlq -h)
  version   print the binary's version and every gobridge module's
  help      print this text
`, a.Name, runDefault, a.Name)
}
