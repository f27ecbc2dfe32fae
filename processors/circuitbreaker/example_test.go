package circuitbreaker_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/processors/circuitbreaker"
)

func ExampleNew() {
	proc, err := circuitbreaker.New(circuitbreaker.Config{
		Name:              "orders-cb",
		FailureThreshold:  2,
		SuccessThreshold:  3,
		ResetTimeout:      time.Minute,
		HalfOpenMaxProbes: 2,
	},
		circuitbreaker.WithKeyExtractor(circuitbreaker.HeaderKey("tenant-id")),
		circuitbreaker.WithOnStateChange(func(key string, from, to circuitbreaker.State) {
			fmt.Printf("breaker %s: %v -> %v\n", key, from, to)
		}),
		circuitbreaker.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
	)
	if err != nil {
		fmt.Println(err)
		return
	}

	env := messaging.NewEnvelope("orders.created", []byte(`{"id":1}`))
	env.SetHeader("tenant-id", "acme")
	broken := func(context.Context, *messaging.Envelope) error { return fault.ErrConnectionLost }
	for range 3 {
		err = proc.Process(context.Background(), env, broken)
	}
	fmt.Println(errors.Is(err, fault.ErrUnavailable), fault.RetryAfter(err).Round(time.Second))
	fmt.Println(proc.Metrics()["acme"].TotalFailures)
	// Output:
	// breaker acme: closed -> open
	// true 1m0s
	// 2
}
