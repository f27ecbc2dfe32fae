package httpsse

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// BenchmarkSSESend measures Send alone, with nobody subscribed: from 8
// goroutines per CPU to one channel, and spread over 64 channels. One op
// is one message sent.
func BenchmarkSSESend(b *testing.B) {
	for _, channels := range []int{1, 64} {
		b.Run(fmt.Sprintf("channels_%d", channels), func(b *testing.B) {
			s, err := NewSSESender(SSEConfig{Listen: "-"}, WithLogger(quiet))
			if err != nil {
				b.Fatal(err)
			}
			defer func() { _ = s.Close(context.Background()) }()
			names := make([]string, channels)
			for i := range names {
				names[i] = fmt.Sprint("c", i)
			}
			env := messaging.NewEnvelope("bench", []byte(`{"order":42,"total":19.9}`))
			var next atomic.Int64
			b.SetParallelism(8)
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				ctx := context.Background()
				for pb.Next() {
					msg := ports.OutboundMessage{Envelope: env, Address: names[int(next.Add(1))%channels]}
					if err := s.Send(ctx, msg); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
