package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/itest"
)

// BenchmarkStartupToReady starts the binary on the quickstart
// configuration (its own ports and data directory) and measures the time
// from exec to a 200 from /api/v1/monitor/ready, then the resident set
// size once it has idled for a second. One op is one start.
func BenchmarkStartupToReady(b *testing.B) {
	var total time.Duration
	var rss float64
	for range b.N {
		dir := b.TempDir()
		p := testPorts{itest.FreePort(b), itest.FreePort(b), itest.FreePort(b), itest.FreePort(b)}
		cfg := filepath.Join(dir, "bridge.yaml")
		if err := os.WriteFile(cfg, []byte(testConfig(p, "http://127.0.0.1:1/hook")), 0o600); err != nil {
			b.Fatal(err)
		}
		pr, ready := startBinary(b, cfg, dir, p)
		total += ready
		// Let it idle for a second (what it holds at rest), failing at
		// once should it exit meanwhile.
		select {
		case err := <-pr.done:
			b.Fatalf("gobridge exited while idle: %v\n%s", err, pr.logs.String())
		case <-time.After(idlePeriod):
		}
		rss += residentMiB(b, pr.cmd.Process.Pid)
		pr.stop(b)
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms-to-ready")
	b.ReportMetric(rss/float64(b.N), "idle-RSS-MiB")
	b.ReportMetric(0, "ns/op")
}

// idlePeriod is how long the process idles before its RSS is read.
const idlePeriod = time.Second

// residentMiB reads VmRSS of pid from /proc.
func residentMiB(b *testing.B, pid int) float64 {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb / 1024
		}
	}
	b.Fatal("no VmRSS line")
	return 0
}
