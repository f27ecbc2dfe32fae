package main

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/itest"
	"github.com/gobridge-oss/gobridge/tools/bench/internal/amqp10io"
	"github.com/gobridge-oss/gobridge/transports/servicebus/sbemu"
)

func TestSBBridgeConfig(t *testing.T) {
	const cs = "Endpoint=sb://127.0.0.1:5999;SharedAccessKeyName=k;SharedAccessKey=dGVzdA==;UseDevelopmentEmulator=true"
	tests := []struct {
		impl       string
		window     int
		has, lacks []string
	}{
		{"bridge", 500, []string{
			`{id: in, type: servicebus, settings: {queue: bench-src, client: {connection_string: "` + cs + `"}}}`,
			`{id: out, type: servicebus, settings: {entity: bench-dst, client: {connection_string: "` + cs + `"}}}`,
			"address: bench-dst}", "delivery_mode: direct_hold", "policy: {max_in_flight: 500}", "dlq: {type: sqlite",
			`monitor_addr: "127.0.0.1:2"`,
		}, []string{"allow_retry_drop", "amqp091", "sessions:", "minimal_headers"}},
		{"bridge+minhdr", 500, []string{`client: {connection_string: "` + cs + `"}, minimal_headers: true}}`},
			[]string{"allow_retry_drop"}},
		{"bridge+nodlq", 100, []string{"max_in_flight: 100, on_expired: drop, on_permanent_failure: drop, allow_retry_drop: true"},
			[]string{"stores:", "sqlite"}},
	}
	for _, tt := range tests {
		t.Run(tt.impl, func(t *testing.T) {
			im, err := parseImpl(tt.impl)
			if err != nil {
				t.Fatal(err)
			}
			y := sbBridgeConfig(cell{"sb-sb", 256, tt.window}, im, cs, 1, 2)
			for _, s := range tt.has {
				if !strings.Contains(y, s) {
					t.Errorf("config lacks %q:\n%s", s, y)
				}
			}
			for _, s := range tt.lacks {
				if strings.Contains(y, s) {
					t.Errorf("config has %q:\n%s", s, y)
				}
			}
		})
	}
}

// TestPeerRoutesEndToEnd runs sb-sb (on an emulator per run),
// amqp10-amqp10 and http-amqp (on the machine's RabbitMQ) with a tiny load, each once
// with the gobridge binary and once with the reference forwarder, and
// checks that every message arrived once and that the CPU figures were
// read.
func TestPeerRoutesEndToEnd(t *testing.T) {
	itest.Short(t, "builds the gobridge binary")
	repo, err := findRepo()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancel()
	work := t.TempDir()
	e := &env{repo: repo, work: work, bridgeBin: filepath.Join(work, "gobridge"), fwdBin: filepath.Join(work, "fwd"),
		amqpURL: "amqp://guest:guest@127.0.0.1:5672/", rabbitPID: findRabbit()}
	// Each binary is built inside its own module, which works with and
	// without the workspace (the tests run with GOWORK=off too).
	for dir, out := range map[string]string{"distro": e.bridgeBin, "tools/bench": e.fwdBin} {
		pkg := "./cmd/gobridge"
		if dir == "tools/bench" {
			pkg = "./cmd/fwd"
		}
		if err := goBuild(ctx, filepath.Join(repo, dir), out, pkg); err != nil {
			t.Fatal(err)
		}
	}
	const n = 300
	for _, route := range []string{"sb-sb", "amqp10-amqp10", "http-amqp"} {
		for _, name := range []string{"bridge", "ref"} {
			t.Run(route+"/"+name, func(t *testing.T) {
				switch route {
				case "sb-sb":
					if !sbemu.Available() {
						itest.Unavailable(t, "Service Bus emulator: %s cannot import proton", sbemu.Python)
					}
				case "amqp10-amqp10":
					c, err := amqp10io.Dial(ctx, e.amqpURL)
					if err != nil {
						itest.Unavailable(t, "AMQP 1.0 on RabbitMQ (scripts/ensure-rabbitmq-amqp10.sh): %v", err)
					}
					_ = c.Close()
				case "http-amqp":
					c, err := net.DialTimeout("tcp", "127.0.0.1:5672", 2*time.Second)
					if err != nil {
						itest.Unavailable(t, "RabbitMQ at 127.0.0.1:5672: %v", err)
					}
					_ = c.Close()
				}
				im, err := parseImpl(name)
				if err != nil {
					t.Fatal(err)
				}
				r := e.runOnce(ctx, cell{route, 64, 50}, im, 0, runOpts{n: n, idle: 30 * time.Second, timeout: 3 * time.Minute})
				if r.Err != "" {
					t.Fatal(r.Err)
				}
				if r.Unique != n || r.Dups != 0 || r.Missing != 0 || r.Stray != 0 {
					t.Errorf("unique %d, duplicates %d, missing %d, stray %d; want %d, 0, 0, 0", r.Unique, r.Dups, r.Missing, r.Stray, n)
				}
				broker := r.EmulatorUS
				if route != "sb-sb" {
					broker = r.RabbitUS
				}
				if r.CPUus <= 0 || broker <= 0 || r.RSSMB <= 0 || (r.PreloadRate <= 0) != (route == "http-amqp") {
					t.Errorf("figures not read: own CPU %v µs, broker %v µs, RSS %v MB, preload %v msg/s", r.CPUus, broker, r.RSSMB, r.PreloadRate)
				}
				if r.Wire == "" {
					t.Error("no first message described")
				}
			})
		}
	}
}

func TestAMQP10BridgeConfig(t *testing.T) {
	im, err := parseImpl("bridge")
	if err != nil {
		t.Fatal(err)
	}
	y := amqp10BridgeConfig(cell{"amqp10-amqp10", 256, 300}, im, "amqp://u:p@127.0.0.1:5999/", 1, 2)
	for _, s := range []string{
		`{id: r10, type: amqp10, settings: {url: "amqp://127.0.0.1:5999", username: "u", password: "p"}}`,
		`settings: {address: "/amq/queue/gobridge.bench.amqp10.src", retry: released}`,
		`{id: out, type: amqp10, session_id: r10, settings: {address: "/amq/queue/gobridge.bench.amqp10.dst"}}`,
		"delivery_mode: direct_hold", "policy: {max_in_flight: 300}", "dlq: {type: sqlite",
	} {
		if !strings.Contains(y, s) {
			t.Errorf("config lacks %q:\n%s", s, y)
		}
	}
}

func TestHTTPBridgeConfig(t *testing.T) {
	im, err := parseImpl("bridge")
	if err != nil {
		t.Fatal(err)
	}
	y := httpBridgeConfig(cell{"http-amqp", 256, 200}, im, "amqp://u:p@h:5672/", "127.0.0.1:5998", 1, 2)
	for _, s := range []string{
		`{id: in, type: http, settings: {listen: "127.0.0.1:5998", paths: ["/publish/{subject}"], body: raw}}`,
		`{id: out, type: amqp091, session_id: rabbit-out, settings: {exchange: gobridge.bench.http}}`,
		"address: gobridge.bench.http.dst}", "delivery_mode: direct_hold", "policy: {max_in_flight: 200}",
	} {
		if !strings.Contains(y, s) {
			t.Errorf("config lacks %q:\n%s", s, y)
		}
	}
}
