package memory_test

import (
	"testing"

	"github.com/gobridge-oss/gobridge/core/conformance"
	"github.com/gobridge-oss/gobridge/core/ports"
)

func TestStreamLogConformance(t *testing.T) {
	conformance.RunStreamLog(t, func(t *testing.T) conformance.StreamLogHarness {
		s, clk := newStore(t)
		return conformance.StreamLogHarness{Log: s, Clock: clk,
			Reopen: func(*testing.T) ports.StreamLog { return s }}
	})
}
