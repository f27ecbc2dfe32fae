package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gobridge-oss/gobridge/tools/bench"
)

// startupCmd starts the gobridge binary on the quickstart configuration
// (examples/quickstart.yaml with free ports and a fresh data directory)
// -n times, and prints for each start the time from exec to ready and the
// resident set after -idle of doing nothing. With -route it starts the
// -impls on a matrix route instead (see idleRoute).
func startupCmd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("startup", flag.ContinueOnError)
	var ef envFlags
	ef.register(fs)
	n := fs.Int("n", 5, "starts")
	idle := fs.Duration("idle", time.Second, "how long the started bridge idles before its RSS is read")
	route := fs.String("route", "", "instead of the quickstart, a matrix route (amqp-amqp, mqtt-amqp) with its brokers and nothing to forward")
	implsF := fs.String("impls", "bridge,ref", "with -route: the forwarders started (see the matrix's -impls; -distro minimal adds minimal)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var impls []impl
	switch *route {
	case "":
		ef.rabbit = "none"
	case "amqp-amqp", "mqtt-amqp":
		var err error
		if impls, err = implList(list(*implsF), ef.distro); err != nil {
			return err
		}
		for _, im := range impls {
			if im.minimal {
				ef.distro = "minimal"
			}
		}
	default:
		return fmt.Errorf("-route %q: amqp-amqp or mqtt-amqp", *route)
	}
	e, done, err := ef.open(ctx)
	if err != nil {
		return err
	}
	defer done()
	if *route != "" {
		return idleRoute(ctx, e, *route, impls, *n, *idle)
	}
	quick, err := os.ReadFile(filepath.Join(e.repo, "examples", "quickstart.yaml"))
	if err != nil {
		return err
	}
	fmt.Printf("benchrun startup: the quickstart, %d starts, load %s\n\n| start | exec to ready ms | idle RSS MiB | peak RSS MiB |\n|---:|---:|---:|---:|\n", *n, bench.LoadAvg())
	var readies, rsss []float64
	for i := range *n {
		dir, err := os.MkdirTemp(e.work, "startup-")
		if err != nil {
			return err
		}
		cfg := string(quick)
		var monitor int
		for _, old := range []string{"127.0.0.1:8080", "127.0.0.1:8090", "127.0.0.1:8081", "127.0.0.1:8082"} {
			p, err := freePort()
			if err != nil {
				return err
			}
			if old == "127.0.0.1:8082" {
				monitor = p
			}
			cfg = strings.ReplaceAll(cfg, old, "127.0.0.1:"+strconv.Itoa(p))
		}
		path := filepath.Join(dir, "quickstart.yaml")
		if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
			return err
		}
		p, err := startBridge(ctx, e.bridgeBin, path, dir, monitor, e.bridgeEnv)
		if err != nil {
			return err
		}
		var ready time.Duration
		select {
		case ready = <-p.ready:
		case <-time.After(30 * time.Second):
			p.kill()
			return fmt.Errorf("not ready within 30s:\n%s", p.tail())
		}
		select {
		case <-time.After(*idle):
		case <-ctx.Done():
			p.kill()
			return ctx.Err()
		}
		rss, _ := bench.ProcRSS(p.pid())
		hwm, _ := bench.ProcHWM(p.pid())
		if err := p.stop(20 * time.Second); err != nil {
			return err
		}
		readies = append(readies, ms(ready))
		rsss = append(rsss, float64(rss)/(1<<20))
		fmt.Printf("| %d | %.1f | %.1f | %.1f |\n", i+1, ms(ready), float64(rss)/(1<<20), float64(hwm)/(1<<20))
	}
	fmt.Printf("| median | %.1f | %.1f | |\n\nload %s\n", bench.Median(readies), bench.Median(rsss), bench.LoadAvg())
	return nil
}
