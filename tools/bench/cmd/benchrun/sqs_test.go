package main

import (
	"context"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/itest"
)

func TestSQSBridgeConfig(t *testing.T) {
	urls := []string{"http://127.0.0.1:9/100010001000/gobridge-bench-src", "http://127.0.0.1:9/100010001000/gobridge-bench-dst"}
	client := `client: {region: us-east-1, endpoint: "http://127.0.0.1:8", protocol: query, access_key_id: test, secret_access_key: test}`
	tests := []struct {
		impl       string
		window     int
		has, lacks []string
	}{
		{"bridge", 500, []string{
			`{id: in, type: sqs, settings: {queue: "` + urls[0] + `", ` + client + `}}`,
			`{id: out, type: sqs, settings: {queue: "` + urls[1] + `", ` + client + `}}`,
			`address: "` + urls[1] + `"}`, "delivery_mode: direct_hold", "policy: {max_in_flight: 500}", "dlq: {type: sqlite",
			`monitor_addr: "127.0.0.1:2"`,
		}, []string{"allow_retry_drop", "sessions:", "pollers"}},
		{"bridge+nodlq", 100, []string{"max_in_flight: 100, on_expired: drop, on_permanent_failure: drop, allow_retry_drop: true"},
			[]string{"stores:", "sqlite"}},
		{"bridge+minhdr", 500, []string{`{id: out, type: sqs, settings: {queue: "` + urls[1] + `", ` + client + `, minimal_headers: true}}`}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.impl, func(t *testing.T) {
			im, err := parseImpl(tt.impl)
			if err != nil {
				t.Fatal(err)
			}
			y := sqsBridgeConfig(cell{"sqs-sqs", 256, tt.window}, im, "http://127.0.0.1:8", urls, 1, 2)
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

// TestSQSRouteEndToEnd runs the route sqs-sqs with a tiny load, once with
// the gobridge binary and once with the reference forwarder, each against
// a private goaws of its own with the call-counting proxy in front, and
// checks that every message arrived once, that the CPU figures were read
// and that both forwarders batched their sends and deletes.
func TestSQSRouteEndToEnd(t *testing.T) {
	// The run starts a goaws of its own from tools/sqsemu; the one
	// scripts/ensure-sqs.sh keeps on 4100 says the machine is set up for it.
	c, err := net.DialTimeout("tcp", "127.0.0.1:4100", time.Second)
	if err != nil {
		itest.Unavailable(t, "no goaws on 127.0.0.1:4100 (bash scripts/ensure-sqs.sh): %v", err)
	}
	_ = c.Close()
	itest.Short(t, "builds the gobridge binary and the emulator")
	repo, err := findRepo()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancel()
	work := t.TempDir()
	e := &env{repo: repo, work: work, bridgeBin: filepath.Join(work, "gobridge"), fwdBin: filepath.Join(work, "fwd")}
	if err := goBuild(ctx, filepath.Join(repo, "distro"), e.bridgeBin, "./cmd/gobridge"); err != nil {
		t.Fatal(err)
	}
	if err := goBuild(ctx, filepath.Join(repo, "tools", "bench"), e.fwdBin, "./cmd/fwd"); err != nil {
		t.Fatal(err)
	}
	const n = 500
	for _, name := range []string{"bridge", "ref"} {
		t.Run(name, func(t *testing.T) {
			im, err := parseImpl(name)
			if err != nil {
				t.Fatal(err)
			}
			r := e.runOnce(ctx, cell{"sqs-sqs", 256, 100}, im, 0, runOpts{n: n, idle: 30 * time.Second, timeout: 3 * time.Minute, sqsCount: true})
			if r.Err != "" {
				t.Fatal(r.Err)
			}
			if r.Unique != n || r.Dups != 0 || r.Missing != 0 || r.Stray != 0 {
				t.Errorf("unique %d, duplicates %d, missing %d, stray %d; want %d, 0, 0, 0", r.Unique, r.Dups, r.Missing, r.Stray, n)
			}
			if r.CPUus <= 0 || r.EmulatorUS <= 0 || r.RSSMB <= 0 || r.PreloadRate <= 0 {
				t.Errorf("figures not read: own CPU %v µs, emulator %v µs, RSS %v MB, preload %v msg/s", r.CPUus, r.EmulatorUS, r.RSSMB, r.PreloadRate)
			}
			// 500 messages in batches of 10 are 50 send and 50 delete
			// calls; the issue allows 1.2 calls per 10 messages.
			for _, action := range []string{"SendMessageBatch", "DeleteMessageBatch"} {
				var per float64
				for f := range strings.SplitSeq(strings.Split(r.Calls, ";")[0], ", ") {
					if a, v, ok := strings.Cut(f, " "); ok && a == action {
						per = parseFloat(t, v)
					}
				}
				if per <= 0 || per > 0.12 {
					t.Errorf("%s per message = %v, want (0, 0.12]; calls: %s", action, per, r.Calls)
				}
			}
		})
	}
}

func parseFloat(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return v
}
