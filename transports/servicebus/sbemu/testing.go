package sbemu

import (
	"context"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/itest"
)

// StartForTest starts an emulator for t and stops it when t ends. When
// python3-qpid-proton is missing it skips t, or fails it when
// GOBRIDGE_REQUIRE_IT is set (see core/itest). Without a Logf it logs the
// emulator's stderr through t.Logf.
func StartForTest(t testing.TB, opts Options) *Emulator {
	t.Helper()
	if !Available() {
		itest.Unavailable(t, "Service Bus emulator: %s cannot import proton (run scripts/ensure-sbemu.sh)", Python)
	}
	if opts.Logf == nil {
		opts.Logf = t.Logf
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
