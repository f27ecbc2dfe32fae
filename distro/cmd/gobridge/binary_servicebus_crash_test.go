package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus"

	"github.com/gobridge-oss/gobridge/transports/servicebus/sbemu"
)

// sbCrashLock is the lock duration of the crash test's queue: what the
// killed bridge held comes back once it expires.
const sbCrashLock = 2 * time.Second

// TestBinarySIGKILLMidStreamServiceBusToAMQPLosesNothing forwards a
// preloaded Service Bus queue (the sbemu emulator) to a RabbitMQ queue on
// a direct_hold route, kills the bridge with SIGKILL once part of it
// arrived, restarts it on the same configuration and data directory, and
// checks that every message reached RabbitMQ with no more duplicates than
// the route's max_in_flight, and that the Service Bus queue ends empty
// with nothing dead-lettered.
func TestBinarySIGKILLMidStreamServiceBusToAMQPLosesNothing(t *testing.T) {
	brokerUp(t, "127.0.0.1:5672")
	e := sbemu.StartForTest(t, sbemu.Options{Entities: []sbemu.Entity{{Name: "crash", LockDuration: sbCrashLock, MaxDeliveryCount: 100}},
		Logf: func(string, ...any) {}})
	const total = 1000
	sbPreload(t, e.ConnectionString(), "crash", total)

	suffix := strconv.FormatInt(time.Now().UnixNano(), 36)
	// consumeAMQP binds the routing key order.from-sqs; the route sends there.
	exchange, rqueue := "sbcrash-"+suffix, "crash.from-servicebus-"+suffix
	got := consumeAMQP(t, exchange, rqueue)

	p := newPorts(t)
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "crash.yaml")
	if err := os.WriteFile(cfgPath, []byte(sbCrashConfig(p, e.ConnectionString(), exchange)), 0o600); err != nil {
		t.Fatal(err)
	}

	first, _ := startBinary(t, cfgPath, dir, p)
	eventually(t, "a part of the queue in RabbitMQ", func() bool { return got.distinct() >= total/10 }, nil)
	if err := first.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-first.done:
		first.done <- err // the helper's cleanup waits for it too
	case <-time.After(10 * time.Second):
		t.Fatal("killed gobridge did not exit")
	}
	atKill := got.distinct()
	if atKill >= total {
		t.Fatalf("all %d messages arrived before the kill: the test did not stop the bridge mid-stream", total)
	}
	c := sbCounts(t, e, "crash")
	t.Logf("%d of %d distinct messages had arrived when gobridge was killed; %d were locked", atKill, total, c.Locked)

	second, _ := startBinary(t, cfgPath, dir, p)
	eventually(t, "every message in RabbitMQ", func() bool { return got.distinct() == total },
		func() string { return fmt.Sprintf("%d of %d distinct arrived", got.distinct(), total) })
	eventually(t, "the Service Bus queue empty", func() bool {
		c := sbCounts(t, e, "crash")
		return c.Active == 0 && c.Locked == 0
	}, func() string { return fmt.Sprintf("%+v", sbCounts(t, e, "crash")) })
	second.stop(t)

	if c := sbCounts(t, e, "crash"); c.DeadLetter != 0 {
		t.Errorf("%d messages were dead-lettered", c.DeadLetter)
	}
	counts := got.snapshot()
	dups := 0
	for i := range total {
		n := counts[fmt.Sprintf("m-%04d", i)]
		if n == 0 {
			t.Errorf("m-%04d never arrived", i)
		}
		dups += max(n-1, 0)
	}
	if len(counts) != total {
		t.Errorf("RabbitMQ got %d distinct bodies, want %d", len(counts), total)
	}
	t.Logf("duplicates after the kill: %d (max_in_flight %d)", dups, crashInFlight)
	if dups > crashInFlight {
		t.Errorf("%d duplicates, want at most max_in_flight = %d", dups, crashInFlight)
	}
}

// sbPreload sends m-0000 ... to queue in batches, with the SDK alone.
func sbPreload(t *testing.T, connStr, queue string, total int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := azservicebus.NewClientFromConnectionString(connStr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	s, err := c.NewSender(queue, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	for i := 0; i < total; i += 100 {
		b, err := s.NewMessageBatch(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for j := i; j < i+100 && j < total; j++ {
			if err := b.AddMessage(&azservicebus.Message{Body: fmt.Appendf(nil, "m-%04d", j)}, nil); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.SendMessageBatch(ctx, b, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// sbCounts asks the emulator what entity holds.
func sbCounts(t *testing.T, e *sbemu.Emulator, entity string) sbemu.Counts {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := e.Counts(ctx, entity)
	if err != nil {
		t.Fatalf("emulator counts of %s: %v", entity, err)
	}
	return c
}

// sbCrashConfig is a Service Bus -> AMQP 0-9-1 direct_hold route.
func sbCrashConfig(p testPorts, connStr, exchange string) string {
	return fmt.Sprintf(`
bridge: {id: servicebus-crash, shutdown_timeout: 10s}
sessions:
  - id: rabbit
    type: amqp091
    settings:
      url: amqp://guest:guest@127.0.0.1:5672/
      topology:
        exchanges:
          - {name: %s, type: topic}
receivers:
  - id: sb-in
    type: servicebus
    settings:
      queue: crash
      client: {connection_string: "%s"}
senders:
  - id: rabbit-out
    type: amqp091
    session_id: rabbit
    settings: {exchange: %s}
bindings:
  - {id: to-rabbit, sender_id: rabbit-out, address: order.from-sqs}
routes:
  - id: crash
    receiver_id: sb-in
    delivery_mode: direct_hold
    bindings: [to-rabbit]
    policy:
      max_in_flight: %d
      backoff: {initial_interval: 50ms, max_interval: 200ms}
stores:
  dlq: {type: sqlite, settings: {path: crash.db}}
http:
  admin_addr: "127.0.0.1:%d"
  monitor_addr: "127.0.0.1:%d"
  admin_api_key: %s
`, exchange, connStr, exchange, crashInFlight, p.admin, p.monitor, testKey)
}
