// Package itest holds the one rule every integration suite of the project
// follows when something it needs (a broker, a binary, a free port, a file
// system feature) is missing: skip, unless the environment variable
// GOBRIDGE_REQUIRE_IT asks for the suite to run, in which case fail. CI
// sets it, so a missing broker fails the run instead of hiding.
//
// It also hands out the ports of servers a test starts later (FreePort),
// from one allocator per test process.
package itest

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// EnvRequire names the variable that turns skips into failures.
const EnvRequire = "GOBRIDGE_REQUIRE_IT"

// Required reports whether integration suites must run: GOBRIDGE_REQUIRE_IT
// is set to anything but the empty string, "0" or "false".
func Required() bool {
	v := strings.TrimSpace(os.Getenv(EnvRequire))
	return v != "" && v != "0" && !strings.EqualFold(v, "false")
}

// Unavailable ends t because something it needs is missing: it fails when
// Required, else skips. The message says what is missing and how to make
// the skip a failure.
func Unavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if Required() {
		t.Fatalf("%s (%s is set, so this fails instead of skipping)", msg, EnvRequire)
	}
	t.Skipf("%s (set %s=1 to fail instead)", msg, EnvRequire)
}

// Short skips t under -short, unless Required: a required run runs every
// integration test, long ones included.
func Short(t testing.TB, why string) {
	t.Helper()
	if testing.Short() && !Required() {
		t.Skipf("%s: skipped in -short mode", why)
	}
}
