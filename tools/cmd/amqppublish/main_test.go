package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	amqp "github.com/rabbitmq/amqp091-go"
)

func TestParse(t *testing.T) {
	def := "amqp://guest:guest@127.0.0.1:5672/"
	tests := []struct {
		name    string
		args    []string
		want    request
		wantErr string
	}{
		{"publish", []string{"-exchange", "orders", "-key", "order.created", "-header", "gobridge.subject=orders.created", `{"id":7}`},
			request{url: def, exchange: "orders", key: "order.created", contentType: "application/json",
				headers: amqp.Table{"gobridge.subject": "orders.created"}, body: `{"id":7}`, hasBody: true, timeout: 10 * time.Second}, ""},
		{"declare only", []string{"-declare-queue", "a", "-declare-queue", "b"},
			request{url: def, contentType: "application/json", headers: amqp.Table{}, queues: []string{"a", "b"}, timeout: 10 * time.Second}, ""},
		{"nothing to do", nil, request{}, "nothing to do"},
		{"bad header", []string{"-header", "novalue", "x"}, request{}, `-header "novalue": want NAME=VALUE`},
		{"unquoted body", []string{"a", "b"}, request{}, "one BODY argument expected, got 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parse(tt.args, io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(request{})); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAgainstRabbitMQ declares a queue, publishes to it through the
// default exchange and reads the message back, then checks that an
// unroutable publish and a missing exchange fail. It needs RabbitMQ on
// 127.0.0.1:5672 and is skipped without it unless GOBRIDGE_REQUIRE_IT is set.
func TestAgainstRabbitMQ(t *testing.T) {
	if c, err := net.DialTimeout("tcp", "127.0.0.1:5672", 2*time.Second); err != nil {
		if os.Getenv("GOBRIDGE_REQUIRE_IT") != "" {
			t.Fatalf("RabbitMQ unreachable: %v", err)
		}
		t.Skipf("RabbitMQ unreachable: %v", err)
	} else {
		_ = c.Close()
	}
	q := fmt.Sprintf("amqppublish-test-%d", time.Now().UnixNano())
	conn, err := amqp.Dial("amqp://guest:guest@127.0.0.1:5672/")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = ch.QueueDelete(q, false, false, false) })

	cases := []struct {
		args     []string
		wantCode int
		wantOut  string
	}{
		{[]string{"-declare-queue", q}, 0, fmt.Sprintf("queue %q declared", q)},
		{[]string{"-key", q, "-header", "gobridge.subject=orders.created", `{"id":7}`}, 0, "(confirmed)"},
		{[]string{"-key", q + ".nope", "x"}, 1, "unroutable"},
		{[]string{"-exchange", q + ".nope", "x"}, 1, "NOT_FOUND"},
	}
	for _, c := range cases {
		var out bytes.Buffer
		if code := run(t.Context(), c.args, &out, &out); code != c.wantCode || !strings.Contains(out.String(), c.wantOut) {
			t.Errorf("%v: exit %d, output %q; want exit %d and %q", c.args, code, out.String(), c.wantCode, c.wantOut)
		}
	}
	d, ok, err := ch.Get(q, true)
	if err != nil || !ok {
		t.Fatalf("get from %s: ok %v, %v", q, ok, err)
	}
	if string(d.Body) != `{"id":7}` || d.Headers["gobridge.subject"] != "orders.created" || d.DeliveryMode != amqp.Persistent {
		t.Errorf("got body %q headers %v mode %d", d.Body, d.Headers, d.DeliveryMode)
	}
}
