package sbemu

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/itest"
)

// InternalErrorMarker starts the log line the emulator writes when one of its
// handlers fails (it then fails the link or connection involved, and keeps
// serving). StartForTest turns such a line into a test error.
const InternalErrorMarker = "internal error in "

// StartForTest starts an emulator for t and stops it when t ends. When
// python3-qpid-proton is missing it skips t, or fails it when
// GOBRIDGE_REQUIRE_IT is set (see core/itest). Without a Logf it logs the
// emulator's stderr through t.Logf; with one or without, an internal error
// of the emulator fails t.
func StartForTest(t testing.TB, opts Options) *Emulator {
	t.Helper()
	if !Available() {
		itest.Unavailable(t, "Service Bus emulator: %s cannot import proton (run scripts/ensure-sbemu.sh)", Python)
	}
	logf := opts.Logf
	if logf == nil {
		logf = t.Logf
	}
	// An emulator bug fails the test even when the caller silences the log.
	opts.Logf = func(format string, args ...any) {
		line := fmt.Sprintf(format, args...)
		if strings.Contains(line, InternalErrorMarker) {
			t.Errorf("Service Bus emulator bug: %s", line)
			return
		}
		logf("%s", line)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	e, err := Start(ctx, opts)
	if err != nil {
		t.Fatalf("start Service Bus emulator: %v", err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Errorf("stop Service Bus emulator: %v", err)
		}
	})
	return e
}
