package main

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/gobridge-oss/gobridge/distro/bundle"
)

// versionReport lists the binary's version and each bundled module's, as
// the Go toolchain recorded them in the build information.
func versionReport() string {
	var b strings.Builder
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "gobridge (no build information)\n"
	}
	fmt.Fprintf(&b, "gobridge %s (%s)\n", bi.Main.Version, bi.GoVersion)
	deps := map[string]*debug.Module{}
	for _, d := range bi.Deps {
		deps[d.Path] = d
	}
	for _, path := range append([]string{"github.com/gobridge-oss/gobridge/core"}, bundle.Modules()...) {
		d, ok := deps[path]
		switch {
		case !ok:
			fmt.Fprintf(&b, "  %s (built in the workspace)\n", path)
		case d.Replace != nil:
			fmt.Fprintf(&b, "  %s %s => %s\n", path, d.Version, d.Replace.Path)
		default:
			fmt.Fprintf(&b, "  %s %s\n", path, d.Version)
		}
	}
	return b.String()
}
