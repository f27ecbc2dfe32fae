package circuitbreaker

import (
	"context"
	"testing"

	"github.com/gobridge-oss/gobridge/core/messaging"
)

// BenchmarkProcessorClosed is one message through a closed, globally keyed
// breaker with a next that succeeds.
func BenchmarkProcessorClosed(b *testing.B) {
	p, err := New(Config{})
	if err != nil {
		b.Fatal(err)
	}
	benchProcess(b, p)
}

// BenchmarkProcessorClosedSubjectKey adds the key lookup in the breaker
// cache.
func BenchmarkProcessorClosedSubjectKey(b *testing.B) {
	p, err := New(Config{Key: KeySubject})
	if err != nil {
		b.Fatal(err)
	}
	benchProcess(b, p)
}

func benchProcess(b *testing.B, p *Processor) {
	ctx := context.Background()
	env := messaging.NewEnvelope("orders", []byte(`{}`))
	next := func(context.Context, *messaging.Envelope) error { return nil }
	b.ReportAllocs()
	for b.Loop() {
		if err := p.Process(ctx, env, next); err != nil {
			b.Fatal(err)
		}
	}
}
