package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/gobridge-oss/gobridge/tools/bench"
)

// implList parses the impls; with -distro minimal the minimal binary
// joins them (after the last bridge impl) unless one is listed already.
func implList(names []string, distro string) ([]impl, error) {
	var impls []impl
	hasMinimal, lastBridge := false, -1
	for _, s := range names {
		im, err := parseImpl(s)
		if err != nil {
			return nil, err
		}
		hasMinimal = hasMinimal || im.minimal
		if im.bridge {
			lastBridge = len(impls)
		}
		impls = append(impls, im)
	}
	if distro == "minimal" && !hasMinimal {
		im, _ := parseImpl("minimal")
		impls = slices.Insert(impls, lastBridge+1, im)
	}
	return impls, nil
}

func matrixCmd(ctx context.Context, args []string) error {
	var ef envFlags
	fs := flag.NewFlagSet("matrix", flag.ContinueOnError)
	ef.register(fs)
	routes := fs.String("routes", "amqp-amqp,mqtt-amqp", "routes: amqp-amqp, mqtt-amqp, sb-sb, sqs-sqs, amqp10-amqp10")
	implsF := fs.String("impls", "bridge,ref", "forwarders (see impl.go: bridge[+1conn|+nomandatory|+noackcoalesce|+nocoalescewrites|+nodlq|+minhdr], minimal[+...], ref[+2conn|+props|+mandatory|+multiack])")
	baseline := fs.String("baseline", "ref", "the impl the ratios are taken against")
	sizesF := fs.String("sizes", "256", "payload sizes in bytes")
	windowsF := fs.String("windows", "500", "in-flight windows (route max_in_flight, prefetch, receive maximum)")
	n := fs.Int("n", 50000, "messages per run (the default keeps the default matrix under 10 minutes on a busy 2-core machine; the issue's figures use 100000)")
	reps := fs.Int("reps", 3, "repetitions of every cell (medians are taken over them)")
	warmup := fs.Int("warmup", 1, "discarded runs of every cell by the baseline impl before the repetitions (the first runs on freshly started brokers are the slowest)")
	live := fs.Bool("live", false, "publish while the forwarder runs (latency) instead of preloading a backlog (throughput)")
	rate := fs.Int("rate", 0, "with -live: messages per second (0: as fast as possible)")
	idle := fs.Duration("idle", 20*time.Second, "end a run when nothing arrived for this long")
	out := fs.String("out", "", "directory for results.json, summary.md and chart.svg (default: none written)")
	sqsCount := fs.Bool("sqs-count", false, "sqs-sqs: count each forwarder's SQS calls per message through a proxy (adds a hop; measure throughput without it)")
	chart := fs.String("chart", "", "also write the chart here (e.g. docs/bench-chart.svg)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	sizes, err := ints(*sizesF)
	if err != nil {
		return fmt.Errorf("-sizes: %w", err)
	}
	windows, err := ints(*windowsF)
	if err != nil {
		return fmt.Errorf("-windows: %w", err)
	}
	impls, err := implList(list(*implsF), ef.distro)
	if err != nil {
		return err
	}
	for _, im := range impls {
		if im.minimal {
			ef.distro = "minimal"
		}
	}
	var cells []cell
	for _, r := range list(*routes) {
		if r != "amqp-amqp" && r != "mqtt-amqp" && !slices.Contains(peerRoutes(), r) {
			return fmt.Errorf("-routes: unknown route %q", r)
		}
		for _, s := range sizes {
			if s < bench.HeaderSize {
				return fmt.Errorf("-sizes: %d is below the %d-byte stamp", s, bench.HeaderSize)
			}
			for _, w := range windows {
				cells = append(cells, cell{r, s, w})
			}
		}
	}
	e, done, err := ef.open(ctx)
	if err != nil {
		return err
	}
	defer done()

	o := runOpts{n: *n, idle: *idle, live: *live, rate: *rate, timeout: 10 * time.Minute, sqsCount: *sqsCount}
	started := time.Now()
	fmt.Printf("benchrun matrix: %d cells × %d impls × %d reps (+%d warm-up per cell), N=%d, live=%v, load %s, %s\n",
		len(cells), len(impls), *reps, *warmup, *n, *live, bench.LoadAvg(), started.UTC().Format(time.RFC3339))
	fmt.Printf("binaries: gobridge %d B", binSize(e.bridgeBin))
	if e.minimalBin != "" {
		fmt.Printf(", minimal %d B", binSize(e.minimalBin))
	}
	fmt.Printf(", reference %d B\n\n", binSize(e.fwdBin))
	runHeader(os.Stdout)
	var results []result
	for _, pr := range runPlan(cells, impls, *baseline, *reps, *warmup) {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r := e.runOnce(ctx, pr.cell, pr.impl, pr.rep, o)
		if pr.warm {
			r.Impl += " (warm-up, discarded)"
			runLine(os.Stdout, r)
			continue
		}
		runLine(os.Stdout, r)
		results = append(results, r)
	}
	var cellNames, implNames []string
	for _, c := range cells {
		cellNames = append(cellNames, c.String())
	}
	for _, im := range impls {
		implNames = append(implNames, im.name)
	}
	s := summarise(results, cellNames, implNames, *baseline)
	fmt.Printf("\nMedians (min–max) of %d runs; **ratio** = median over repetitions of impl ÷ %s in the same repetition. Took %v, load %s.\n\n",
		*reps, *baseline, time.Since(started).Round(time.Second), bench.LoadAvg())
	s.write(os.Stdout)
	for _, r := range results {
		if r.Wire != "" && r.Rep == 0 {
			fmt.Printf("\non the wire, %s %s: %s", r.Cell, r.Impl, r.Wire)
		}
	}
	fmt.Println()
	title := fmt.Sprintf("gobridge vs hand-written forwarder, %d msgs per run, medians of %d", *n, *reps)
	ch := s.chart(title)
	write := func(path string, f func(*os.File) error) error {
		fh, err := os.Create(path)
		if err != nil {
			return err
		}
		if err := f(fh); err != nil {
			fh.Close()
			return err
		}
		return fh.Close()
	}
	if *out != "" {
		if err := os.MkdirAll(*out, 0o755); err != nil {
			return err
		}
		if err := write(filepath.Join(*out, "results.json"), func(f *os.File) error {
			enc := json.NewEncoder(f)
			enc.SetIndent("", "  ")
			return enc.Encode(results)
		}); err != nil {
			return err
		}
		if err := write(filepath.Join(*out, "summary.md"), func(f *os.File) error { s.write(f); return nil }); err != nil {
			return err
		}
		if err := write(filepath.Join(*out, "chart.svg"), func(f *os.File) error { return ch.WriteSVG(f) }); err != nil {
			return err
		}
	}
	if *chart != "" {
		if err := write(*chart, func(f *os.File) error { return ch.WriteSVG(f) }); err != nil {
			return err
		}
	}
	return nil
}
