// Command benchrun is the process-level benchmark harness: it builds the
// gobridge binary and the hand-written reference forwarder, and measures
// both as processes on the same routes in the same invocation.
//
//	benchrun [matrix flags]      the matrix: route × size × window × impl, repeated
//	benchrun kill [flags]        SIGKILL the bridge every few seconds mid-stream; lost and duplicated messages
//	benchrun loadgen [flags]     publish N stamped messages (AMQP 0-9-1 or MQTT)
//	benchrun sink [flags]        count stamped messages on an AMQP queue
//	benchrun chart -in results.json -o chart.svg   redraw a matrix's summary and chart
//	benchrun startup [-n 5]      exec-to-ready time and idle RSS on the quickstart
//	benchrun wirecost            RabbitMQ's CPU per message for what forwarders put on it, no forwarder
//
// Run it from anywhere inside the repository (it finds go.work); it needs
// RabbitMQ (-amqp) and the mosquitto binary, and prints Markdown tables.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	args := os.Args[1:]
	cmd := "matrix"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	var err error
	switch cmd {
	case "matrix":
		err = matrixCmd(ctx, args)
	case "kill":
		err = killCmd(ctx, args)
	case "loadgen":
		err = loadgenCmd(ctx, args)
	case "sink":
		err = sinkCmd(ctx, args)
	case "chart":
		err = chartCmd(args)
	case "startup":
		err = startupCmd(ctx, args)
	case "wirecost":
		err = wirecostCmd(ctx, args)
	default:
		err = fmt.Errorf("unknown command %q (matrix, kill, loadgen, sink, chart, startup, wirecost)", cmd)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchrun:", err)
		os.Exit(1)
	}
}

// envFlags are the flags every broker-facing command takes.
type envFlags struct {
	repo, work, bridgeBin, fwdBin, amqpURL, mosqBin string
	rabbit, rabbitBin                               string
	distro, minimalBin, minimalManifest             string
	keep                                            bool
	bridgeEnv, fwdEnv                               []string
}

func (f *envFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.repo, "repo", "", "repository root (default: the directory holding go.work above the working directory)")
	fs.StringVar(&f.work, "work", "", "scratch directory (default: a new temporary one, removed at the end)")
	fs.BoolVar(&f.keep, "keep", false, "keep the scratch directory (configurations, logs)")
	fs.StringVar(&f.bridgeBin, "bridge-bin", "", "a prebuilt gobridge binary (default: go build ./distro/cmd/gobridge)")
	fs.StringVar(&f.distro, "distro", "curated", "curated: the curated gobridge binary only; minimal: also build tools/bench/minimal-distro.yaml with tools/builder (MQTT and AMQP 0-9-1 only) and run it as the impl minimal")
	fs.StringVar(&f.minimalManifest, "minimal-manifest", "", "the builder manifest of the minimal binary (default: tools/bench/minimal-distro.yaml; minimal-servicebus-distro.yaml and minimal-sqs-distro.yaml are there for sb-sb and sqs-sqs)")
	fs.StringVar(&f.minimalBin, "minimal-bin", "", "a prebuilt minimal binary (default: built with tools/builder when -distro minimal)")
	fs.StringVar(&f.fwdBin, "fwd-bin", "", "a prebuilt reference forwarder (default: go build ./tools/bench/cmd/fwd)")
	fs.StringVar(&f.rabbit, "rabbit", "private", "private: start a RabbitMQ node of the harness's own from the machine's installation, so that the broker CPU read is only the runs'; shared: use -amqp (the broker's CPU then includes everyone else's traffic)")
	fs.StringVar(&f.rabbitBin, "rabbitmq-server", "", "rabbitmq-server script for -rabbit private (default: from PATH or /usr/sbin)")
	fs.StringVar(&f.amqpURL, "amqp", "amqp://guest:guest@127.0.0.1:5672/", "RabbitMQ URL with -rabbit shared")
	fs.StringVar(&f.mosqBin, "mosquitto", "", "mosquitto binary (default: from PATH or /usr/sbin)")
	fs.Func("bridge-env", "NAME=VALUE added to the gobridge process's environment (repeatable), e.g. GOGC=200", func(s string) error {
		if !strings.Contains(s, "=") {
			return fmt.Errorf("%q is not NAME=VALUE", s)
		}
		f.bridgeEnv = append(f.bridgeEnv, s)
		return nil
	})
	fs.Func("fwd-env", "NAME=VALUE added to the reference forwarder's environment (repeatable)", func(s string) error {
		if !strings.Contains(s, "=") {
			return fmt.Errorf("%q is not NAME=VALUE", s)
		}
		f.fwdEnv = append(f.fwdEnv, s)
		return nil
	})
}

// open builds the binaries and returns the environment; done removes the
// scratch directory unless -keep.
func (f *envFlags) open(ctx context.Context) (e *env, done func(), err error) {
	e = &env{bridgeBin: f.bridgeBin, fwdBin: f.fwdBin, amqpURL: f.amqpURL, mosqBin: f.mosqBin, repo: f.repo,
		bridgeEnv: f.bridgeEnv, fwdEnv: f.fwdEnv, minimalBin: f.minimalBin, minimalManifest: f.minimalManifest}
	switch f.distro {
	case "curated":
	case "minimal":
		e.wantMinimal = true
	default:
		return nil, nil, fmt.Errorf("-distro %q: curated or minimal", f.distro)
	}
	if e.repo == "" {
		if e.repo, err = findRepo(); err != nil {
			return nil, nil, err
		}
	}
	e.work = f.work
	if e.work == "" {
		if e.work, err = os.MkdirTemp("", "gobridge-bench-"); err != nil {
			return nil, nil, err
		}
	} else if err := os.MkdirAll(e.work, 0o755); err != nil {
		return nil, nil, err
	}
	done = func() {
		e.close()
		if !f.keep && f.work == "" {
			_ = os.RemoveAll(e.work)
		} else {
			fmt.Fprintln(os.Stderr, "scratch directory kept:", e.work)
		}
	}
	if err := e.build(ctx); err != nil {
		done()
		return nil, nil, err
	}
	switch f.rabbit {
	case "private":
		if err := e.startRabbit(ctx, f.rabbitBin); err != nil {
			done()
			return nil, nil, err
		}
	case "none": // a command that needs no broker
	case "shared":
		if e.rabbitPID = findRabbit(); e.rabbitPID == 0 {
			fmt.Fprintln(os.Stderr, "benchrun: RabbitMQ's beam.smp not found; broker CPU not measured")
		}
	default:
		done()
		return nil, nil, fmt.Errorf("-rabbit %q: private or shared", f.rabbit)
	}
	return e, done, nil
}

// ints parses "256,4096".
func ints(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q is not a positive number", f)
		}
		out = append(out, n)
	}
	return out, nil
}

func list(s string) []string {
	var out []string
	for f := range strings.SplitSeq(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
