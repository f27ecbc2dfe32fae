package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"time"

	"github.com/gobridge-oss/gobridge/tools/bench"
	"github.com/gobridge-oss/gobridge/tools/bench/internal/amqpio"
)

// killCmd preloads N messages, then runs the bridge on AMQP → AMQP and
// kills it with SIGKILL every -every (± half of it, at random) until the
// sink has every message, restarting it at once each time; the last one
// drains the rest and is stopped with SIGTERM. It reports what was lost
// and duplicated.
func killCmd(ctx context.Context, args []string) error {
	var ef envFlags
	fs := flag.NewFlagSet("kill", flag.ContinueOnError)
	ef.register(fs)
	n := fs.Int("n", 100000, "messages")
	size := fs.Int("size", 256, "payload bytes")
	window := fs.Int("window", 500, "route max_in_flight")
	every := fs.Duration("every", 2*time.Second, "mean time between kills")
	implF := fs.String("impl", "bridge", "the forwarder to kill (bridge or ref variants)")
	settle := fs.Duration("settle", 3*time.Second, "after the last message: how long nothing may arrive before the count is final")
	if err := fs.Parse(args); err != nil {
		return err
	}
	im, err := parseImpl(*implF)
	if err != nil {
		return err
	}
	if im.minimal {
		ef.distro = "minimal"
	}
	e, done, err := ef.open(ctx)
	if err != nil {
		return err
	}
	defer done()
	c := cell{route: "amqp-amqp", size: *size, window: *window}
	nm := namesFor(c.route, im)
	run := rand.Uint64()
	if err := amqpio.Prepare(e.amqpURL, amqpio.Topology{Source: nm.src, Exchange: nm.exchange, Target: nm.dst}); err != nil {
		return err
	}
	t0 := time.Now()
	if err := amqpio.Publish(ctx, e.amqpURL, nm.src, amqpio.Load{Run: run, N: *n, Size: *size}); err != nil {
		return err
	}
	fmt.Printf("benchrun kill: %s, %d × %d B preloaded in %v, max_in_flight %d, a SIGKILL every ~%v, load %s\n",
		im.name, *n, *size, time.Since(t0).Round(time.Millisecond), *window, *every, bench.LoadAvg())
	counter := bench.NewCounter(run, *n)
	sink, err := amqpio.StartSink(e.amqpURL, nm.dst, counter)
	if err != nil {
		return err
	}
	defer func() { _ = sink.Stop() }()

	kills := 0
	var perKill []int  // unique arrivals between kills, to show each kill was mid-stream
	var dupMarks []int // the sink's duplicate count at each kill
	start := time.Now()
	var p *fwdProc
	for {
		dir, err := os.MkdirTemp(e.work, "kill-")
		if err != nil {
			return err
		}
		if p, err = e.startForwarder(ctx, c, im, nm, dir, nil); err != nil {
			return err
		}
		before := counter.Unique()
		wait := time.Duration(float64(*every) * (0.5 + rand.Float64()))
		select {
		case <-counter.Done():
		case <-time.After(wait):
		case <-ctx.Done():
			p.kill()
			return ctx.Err()
		}
		if _, gone := p.exited(); gone {
			return fmt.Errorf("the forwarder exited by itself:\n%s", p.tail())
		}
		select {
		case <-counter.Done():
		default:
			p.kill()
			kills++
			perKill = append(perKill, counter.Unique()-before)
			dupMarks = append(dupMarks, counter.Duplicates())
			continue
		}
		break
	}
	// Every sequence number arrived; wait for the source to drain and the
	// redeliveries to stop before counting.
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		depth, err := amqpio.Depth(e.amqpURL, nm.src)
		if err == nil && depth == 0 && time.Since(counter.LastArrival()) > *settle {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	stopErr := p.stop(20 * time.Second)
	t := counter.Tally()
	fmt.Printf("\n| impl | messages | kills | forwarded in | lost | duplicates | duplicates per kill (max) | max_in_flight | stray | load1 5 15 |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	// The duplicates a kill causes are the in-flight messages the restarted
	// forwarder gets again: they arrive after that kill, before the next.
	dupMarks = append(dupMarks, t.Duplicates)
	var dupsPerKill []int
	for i := 1; i < len(dupMarks); i++ {
		dupsPerKill = append(dupsPerKill, dupMarks[i]-dupMarks[i-1])
	}
	mean, most := 0.0, 0
	if kills > 0 {
		mean = float64(t.Duplicates) / float64(kills)
		most = slices.Max(dupsPerKill)
	}
	fmt.Printf("| %s | %d | %d | %v | %d | %d | %.0f (%d) | %d | %d | %s |\n", im.name, *n, kills,
		time.Since(start).Round(100*time.Millisecond), t.Missing, t.Duplicates, mean, most, *window, t.Stray, bench.LoadAvg())
	fmt.Printf("\nunique arrivals between kills: %v\nduplicates after each kill: %v\n", perKill, dupsPerKill)
	if t.Missing > 0 {
		fmt.Printf("first missing sequence numbers: %v\n", t.MissingIDs)
	}
	if stopErr != nil {
		fmt.Println("last stop:", stopErr)
	}
	if t.Missing > 0 {
		return fmt.Errorf("%d messages lost", t.Missing)
	}
	return nil
}
