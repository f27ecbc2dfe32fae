package streamlog_test

import (
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/clock"
	"github.com/gobridge-oss/gobridge/core/conformance"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/streamlog"
)

func TestMemoryConformance(t *testing.T) {
	conformance.RunStreamLog(t, func(t *testing.T) conformance.StreamLogHarness {
		clk := clock.NewFake(time.Date(2031, time.May, 6, 7, 8, 9, 123456789, time.UTC))
		l := streamlog.NewMemory(clk)
		// Nothing survives a restart: reopening is the same log.
		return conformance.StreamLogHarness{Log: l, Clock: clk, Reopen: func(*testing.T) ports.StreamLog { return l }}
	})
}

func TestMemoryIsVolatile(t *testing.T) {
	if !ports.IsVolatile(streamlog.NewMemory(nil)) {
		t.Error("a memory stream log does not say it dies with the process")
	}
}
