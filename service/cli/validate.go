package cli

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/gobridge-oss/gobridge/core/config"
	"github.com/gobridge-oss/gobridge/core/registry"
	"github.com/gobridge-oss/gobridge/service"
)

// cmdValidate reports every problem of a configuration file.
func (a *app) cmdValidate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	path := fs.String("c", "", "configuration file to check (required)")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if *path == "" {
		fmt.Fprintf(stderr, "%s validate: -c FILE is required\n", a.Name)
		return exitUsage
	}
	// A partial load keeps what decoded, so the rules and the plugins'
	// checks run on it too and one run reports every problem, an unknown
	// key beside a bad reference.
	f, err := config.Load(*path, config.WithPartial())
	if f != nil {
		warns, verr := service.Validate(f, a.reg, nil)
		err = config.JoinProblems(err, verr)
		printWarnings(stdout, warns)
	}
	if err != nil {
		reportProblems(stdout, *path, err)
		return exitInvalid
	}
	fmt.Fprintf(stdout, "%s: ok (%d routes)\n", *path, len(f.Routes))
	return exitOK
}

// cmdConfig handles `gobridge config schema`.
func (a *app) cmdConfig(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 || args[0] != "schema" {
		fmt.Fprintf(stderr, "usage: %s config schema\n", a.Name)
		return exitUsage
	}
	reg := a.reg
	plugins := map[string]map[string]json.RawMessage{}
	for _, k := range registry.Kinds() {
		m := map[string]json.RawMessage{}
		for _, typ := range reg.Types(k) {
			f, _ := reg.Lookup(k, typ)
			m[typ] = f.Schema()
		}
		plugins[string(k)] = m
	}
	out, err := config.Schema(plugins)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitFailed
	}
	_, _ = stdout.Write(append(out, '\n'))
	return exitOK
}
