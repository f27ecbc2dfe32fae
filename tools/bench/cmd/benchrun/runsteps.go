package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/gobridge-oss/gobridge/tools/bench"
)

// The steps every runner (runOnce, runPeer) takes around its own set-up,
// each filling its part of the result.

// preload publishes a run's n messages before the forwarder starts and
// records the rate the load generator reached.
func (res *result) preload(n int, publish func() error) error {
	t0 := time.Now()
	if err := publish(); err != nil {
		return fmt.Errorf("preload: %w", err)
	}
	res.PreloadRate = float64(n) / time.Since(t0).Seconds()
	return nil
}

// startLive waits until the forwarder p is ready, records how long it
// took, and runs publish in the background while the forwarder works.
// The returned join, deferred by the runner, cancels the run's context
// (which stops the load generator) and waits for it.
func (res *result) startLive(ctx context.Context, cancel context.CancelFunc, p *fwdProc, publish func() error) (join func(), err error) {
	select {
	case d := <-p.ready:
		res.ReadyMS = ms(d)
	case <-ctx.Done():
		return nil, fmt.Errorf("not ready: %w\n%s", ctx.Err(), p.tail())
	}
	published := make(chan struct{})
	go func() {
		defer close(published)
		if err := publish(); err != nil && ctx.Err() == nil {
			fmt.Fprintln(os.Stderr, "live load generator:", err)
		}
	}()
	return func() { cancel(); <-published }, nil
}

// noteReady records the forwarder's start-up time if it reported one by
// now (a preloaded run does not wait for it).
func (res *result) noteReady(p *fwdProc) {
	select {
	case d := <-p.ready:
		res.ReadyMS = ms(d)
	default:
	}
}

// brokerCPU is a broker's CPU at the start of a run, to charge what it
// used over the run per message into a field of the result.
type brokerCPU struct {
	pid  int // 0: not known, nothing charged
	t0   time.Duration
	into *float64
}

func startBrokerCPU(pid int, into *float64) brokerCPU {
	b := brokerCPU{pid: pid, into: into}
	if pid != 0 {
		b.t0, _ = bench.ProcCPU(pid)
	}
	return b
}

// measure fills res with what a run measured once the sink had its
// messages: the forwarder p's CPU per message, its peak and current RSS,
// the counter's tally, each broker's CPU per message and the load
// average. It returns the tally.
func (res *result) measure(p *fwdProc, counter *bench.Counter, brokers ...brokerCPU) bench.Tally {
	cpu, _ := bench.ProcCPU(p.pid())
	hwm, _ := bench.ProcHWM(p.pid())
	anon, _ := bench.ProcStatusKB(p.pid(), "RssAnon")
	file, _ := bench.ProcStatusKB(p.pid(), "RssFile")
	ends := make([]time.Duration, len(brokers))
	for i, b := range brokers {
		if b.pid != 0 {
			ends[i], _ = bench.ProcCPU(b.pid)
		}
	}
	t := counter.Tally()
	res.Rate = t.Rate()
	res.Unique, res.Dups, res.Missing, res.Stray = t.Unique, t.Duplicates, t.Missing, t.Stray
	res.P50ms, res.P99ms = ms(t.P50), ms(t.P99)
	if t.Unique > 0 {
		per := float64(t.Unique)
		res.CPUus = float64(cpu.Microseconds()) / per
		for i, b := range brokers {
			if b.pid != 0 {
				*b.into = float64((ends[i] - b.t0).Microseconds()) / per
			}
		}
	}
	res.RSSMB = float64(hwm) / (1 << 20)
	res.AnonMB, res.FileMB = float64(anon)/(1<<20), float64(file)/(1<<20)
	res.Load = bench.LoadAvg()
	return t
}
