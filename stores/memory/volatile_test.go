package memory_test

import (
	"testing"

	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/stores/memory"
)

func TestStoreIsVolatile(t *testing.T) {
	if !ports.IsVolatile(memory.New()) {
		t.Error("the memory store does not say that its contents die with the process")
	}
}
