package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/gobridge-oss/gobridge/core/config"
	"github.com/gobridge-oss/gobridge/core/registry"
	"github.com/gobridge-oss/gobridge/distro/bundle"
	"github.com/gobridge-oss/gobridge/distro/internal/bridge"
)

// cmdValidate reports every problem of a configuration file.
func cmdValidate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	path := fs.String("c", "", "configuration file to check (required)")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if *path == "" {
		fmt.Fprintln(stderr, "gobridge validate: -c FILE is required")
		return exitUsage
	}
	reg, err := bundle.Registry()
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitFailed
	}
	f, err := config.Load(*path)
	if err == nil {
		var warns []config.Warning
		warns, err = bridge.Validate(f, reg, nil)
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
func cmdConfig(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 || args[0] != "schema" {
		fmt.Fprintln(stderr, "usage: gobridge config schema")
		return exitUsage
	}
	reg, err := bundle.Registry()
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitFailed
	}
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
