package amqp10io

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/gobridge-oss/gobridge/core/itest"
	"github.com/gobridge-oss/gobridge/tools/bench"
)

// rabbitURL is the machine's RabbitMQ, which scripts/ensure-rabbitmq-amqp10.sh
// gives the AMQP 1.0 plugin.
const rabbitURL = "amqp://guest:guest@127.0.0.1:5672/"

// testQueue declares a queue of the test's own over AMQP 0-9-1 and deletes
// it when the test ends; it skips the test when RabbitMQ or its AMQP 1.0
// plugin cannot be reached (fails it under GOBRIDGE_REQUIRE_IT).
func testQueue(t *testing.T) string {
	t.Helper()
	conn, err := amqp091.Dial(rabbitURL)
	if err != nil {
		itest.Unavailable(t, "RabbitMQ at %s: %v", rabbitURL, err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	q := fmt.Sprintf("gobridge.bench.test.%d", rand.Uint64())
	if _, err := ch.QueueDeclare(q, false, false, false, false, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = ch.QueueDelete(q, false, false, false) })
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	c, err := Dial(ctx, rabbitURL)
	if err != nil {
		itest.Unavailable(t, "AMQP 1.0 on RabbitMQ (scripts/ensure-rabbitmq-amqp10.sh): %v", err)
	}
	_ = c.Close()
	return q
}

func TestPublishThenSinkCountsEveryMessageOnce(t *testing.T) {
	tests := []struct {
		name string
		load Load
	}{
		{"defaults", Load{N: 500, Size: 64}},
		{"one publisher, small window", Load{N: 120, Size: 2000, Window: 3, Publishers: 1}},
		{"paced", Load{N: 50, Size: 24, Rate: 500}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := testQueue(t)
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			l := tt.load
			l.Run = rand.Uint64()
			if err := Publish(ctx, rabbitURL, QueueAddress(q), l); err != nil {
				t.Fatal(err)
			}
			c := bench.NewCounter(l.Run, l.N)
			s, err := StartSink(ctx, rabbitURL, QueueAddress(q), c)
			if err != nil {
				t.Fatal(err)
			}
			select {
			case <-c.Done():
			case <-ctx.Done():
				t.Errorf("sink has %d of %d", c.Unique(), l.N)
			}
			if err := s.Stop(); err != nil {
				t.Error(err)
			}
			got := c.Tally()
			want := bench.Tally{N: l.N, Unique: l.N}
			if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(bench.Tally{}, "First", "Last", "P50", "P99")); diff != "" {
				t.Errorf("tally (-want +got):\n%s", diff)
			}
			if w, ok := s.FirstWire(); !ok || !w.Durable {
				t.Errorf("first wire = %+v, %v; want a durable message", w, ok)
			}
		})
	}
}
