package cli

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// modulePrefix is the path every gobridge module starts with.
const modulePrefix = "github.com/gobridge-oss/gobridge/"

// versionReport lists the binary's version and every gobridge module it
// was built with, as the Go toolchain recorded them in the build
// information: the binary holds exactly these plugins.
func (a *app) versionReport() string {
	var b strings.Builder
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return a.Name + " (no build information)\n"
	}
	fmt.Fprintf(&b, "%s %s (%s)\n", a.Name, bi.Main.Version, bi.GoVersion)
	for _, d := range bi.Deps {
		if !strings.HasPrefix(d.Path, modulePrefix) {
			continue
		}
		switch {
		case d.Replace != nil && (d.Replace.Version == "" || d.Replace.Version == "(devel)"):
			fmt.Fprintf(&b, "  %s (local: %s)\n", d.Path, d.Replace.Path)
		case d.Replace != nil:
			fmt.Fprintf(&b, "  %s %s => %s %s\n", d.Path, d.Version, d.Replace.Path, d.Replace.Version)
		default:
			fmt.Fprintf(&b, "  %s %s\n", d.Path, d.Version)
		}
	}
	return b.String()
}
