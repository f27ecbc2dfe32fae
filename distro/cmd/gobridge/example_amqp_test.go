package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// TestExampleAMQPToMQTT runs examples/amqp-to-mqtt.yaml against the local
// RabbitMQ and Mosquitto: a message published to the exchange arrives on
// the MQTT topic with its subject, and the queue is drained.
func TestExampleAMQPToMQTT(t *testing.T) {
	brokerUp(t, "127.0.0.1:5672")
	brokerUp(t, "127.0.0.1:1883")
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", "amqp-to-mqtt.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	p := newPorts(t)
	suffix := fmt.Sprint(time.Now().UnixNano())
	exchange, queue, topic := "orders-"+suffix, "orders.to-mqtt-"+suffix, "factory-"+suffix+"/orders"
	cfg := string(raw)
	for old, repl := range map[string]string{
		"127.0.0.1:8081":            fmt.Sprintf("127.0.0.1:%d", p.admin),
		"127.0.0.1:8082":            fmt.Sprintf("127.0.0.1:%d", p.monitor),
		"{name: orders, type":       "{name: " + exchange + ", type",
		"exchange: orders, queue":   "exchange: " + exchange + ", queue",
		"orders.to-mqtt":            queue,
		"factory/orders":            topic,
		"gobridge-amqp-to-mqtt":     "gobridge-" + suffix,
		"${env:GOBRIDGE_ADMIN_KEY}": testKey,
	} {
		cfg = strings.ReplaceAll(cfg, old, repl)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "amqp.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	ch := rabbitChannel(t)
	t.Cleanup(func() {
		_, _ = ch.QueueDelete(queue, false, false, false)
		_ = ch.ExchangeDelete(exchange, false, false)
		for _, d := range []string{"1s", "5s", "30s"} {
			_, _ = ch.QueueDelete(queue+".retry."+d, false, false, false)
		}
		_ = ch.ExchangeDelete(queue+".retry", false, false)
	})

	pr, _ := startBinary(t, path, dir, p)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sub := exec.CommandContext(ctx, "mosquitto_sub", "-V", "mqttv5", "-h", "127.0.0.1", "-t", topic, "-C", "1", "-F", "%t %p")
	subOut := &lockedBuffer{}
	sub.Stdout, sub.Stderr = subOut, subOut
	if err := sub.Start(); err != nil {
		t.Fatal(err)
	}
	// mosquitto_sub has no "subscribed" signal: publish until it exits.
	body := `{"id":7}`
	deadline := time.After(15 * time.Second)
	exited := make(chan error, 1)
	go func() { exited <- sub.Wait() }()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for done := false; !done; {
		if err := ch.PublishWithContext(ctx, exchange, "order.created", false, false, amqp.Publishing{
			Body: []byte(body), Headers: amqp.Table{"gobridge.subject": "orders.created"}, DeliveryMode: amqp.Persistent,
		}); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-exited:
			if err != nil {
				t.Fatalf("mosquitto_sub: %v\n%s", err, subOut.String())
			}
			done = true
		case <-tick.C:
		case <-deadline:
			t.Fatalf("nothing arrived on %s\n%s", topic, subOut.String())
		}
	}
	if got := subOut.String(); !strings.Contains(got, topic+" "+body) {
		t.Errorf("mosquitto_sub printed %q, want %q", got, topic+" "+body)
	}
	pr.stop(t)
}
