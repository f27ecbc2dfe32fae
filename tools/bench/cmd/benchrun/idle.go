package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/gobridge-oss/gobridge/tools/bench"
	"github.com/gobridge-oss/gobridge/tools/bench/internal/amqpio"
	"github.com/gobridge-oss/gobridge/tools/bench/internal/mqttio"
)

// idleRoute starts each impl on a matrix route with nothing to forward, n
// times in rotation, and prints exec-to-ready, the resident set after idle
// and the peak: what each binary costs before the first message (the
// minimal distro cannot run the quickstart, this it can).
func idleRoute(ctx context.Context, e *env, route string, impls []impl, n int, idle time.Duration) error {
	c := cell{route: route, size: 256, window: 500}
	fmt.Printf("benchrun startup: route %s with nothing to forward, %d starts per impl in rotation, load %s\n\n", route, n, bench.LoadAvg())
	fmt.Println("| impl | start | exec to ready ms | idle RSS MiB | peak RSS MiB |\n|---|---:|---:|---:|---:|")
	ready, rss := map[string][]float64{}, map[string][]float64{}
	for i := range n {
		for k := range impls {
			im := impls[(i+k)%len(impls)]
			nm := namesFor(route, im)
			if err := amqpio.Prepare(e.amqpURL, amqpio.Topology{Source: nm.src, Exchange: nm.exchange, Target: nm.dst}); err != nil {
				return err
			}
			var mosq *mqttio.Broker
			if route == "mqtt-amqp" {
				var err error
				if mosq, err = e.mosquitto(ctx); err != nil {
					return err
				}
				if err := mqttio.PrepareSession(ctx, mosq.Addr, nm.clientID, nm.topic, time.Hour); err != nil {
					return err
				}
			}
			dir, err := os.MkdirTemp(e.work, "idle-")
			if err != nil {
				return err
			}
			p, err := e.startForwarder(ctx, c, im, nm, dir, mosq)
			if err != nil {
				return err
			}
			var d time.Duration
			select {
			case d = <-p.ready:
			case <-time.After(30 * time.Second):
				p.kill()
				return fmt.Errorf("%s not ready within 30s:\n%s", im.name, p.tail())
			case <-ctx.Done():
				p.kill()
				return ctx.Err()
			}
			select {
			case <-time.After(idle):
			case <-ctx.Done():
				p.kill()
				return ctx.Err()
			}
			r, _ := bench.ProcRSS(p.pid())
			hwm, _ := bench.ProcHWM(p.pid())
			if err := p.stop(20 * time.Second); err != nil {
				return err
			}
			ready[im.name] = append(ready[im.name], ms(d))
			rss[im.name] = append(rss[im.name], float64(r)/(1<<20))
			fmt.Printf("| %s | %d | %.1f | %.1f | %.1f |\n", im.name, i+1, ms(d), float64(r)/(1<<20), float64(hwm)/(1<<20))
		}
	}
	fmt.Println("\n| impl | exec to ready ms, median (min–max) | idle RSS MiB, median (min–max) |\n|---|---:|---:|")
	for _, im := range impls {
		rlo, rhi := bench.Spread(ready[im.name])
		slo, shi := bench.Spread(rss[im.name])
		fmt.Printf("| %s | %.1f (%.1f–%.1f) | %.1f (%.1f–%.1f) |\n", im.name, bench.Median(ready[im.name]), rlo, rhi,
			bench.Median(rss[im.name]), slo, shi)
	}
	fmt.Printf("\nload %s\n", bench.LoadAvg())
	return nil
}
