package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/gobridge-oss/gobridge/tools/bench"
	"github.com/gobridge-oss/gobridge/tools/bench/internal/amqpio"
	"github.com/gobridge-oss/gobridge/tools/bench/internal/mqttio"
)

// env is what every run of one harness invocation shares.
type env struct {
	repo      string // repository root
	work      string // scratch directory
	bridgeBin string
	fwdBin    string
	// minimalBin is the builder-made binary of minimal-distro.yaml, built
	// when wantMinimal.
	minimalBin  string
	wantMinimal bool
	// minimalManifest is the builder manifest of minimalBin (default:
	// tools/bench/minimal-distro.yaml).
	minimalManifest string
	amqpURL         string
	rabbitPID       int            // beam.smp, for the broker's CPU
	mosq            *mqttio.Broker // the harness's own Mosquitto, started on demand
	rabbit          *amqpio.Node   // the harness's own RabbitMQ node, unless -rabbit shared
	mosqBin         string
	bridgeEnv       []string // extra environment of the gobridge process (GOGC=..., GODEBUG=gctrace=1)
	fwdEnv          []string // and of the reference forwarder
}

// findRepo walks up from the working directory to the directory holding
// go.work.
func findRepo() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.work above the working directory; pass -repo")
		}
		dir = parent
	}
}

// build compiles the gobridge binary and the reference forwarder into the
// scratch directory, unless prebuilt paths were given, and installs a
// copy of each to run.
func (e *env) build(ctx context.Context) error {
	if e.bridgeBin == "" {
		e.bridgeBin = filepath.Join(e.work, "gobridge")
		if err := goBuild(ctx, e.repo, e.bridgeBin, "./distro/cmd/gobridge"); err != nil {
			return err
		}
	}
	if e.fwdBin == "" {
		e.fwdBin = filepath.Join(e.work, "fwd")
		if err := goBuild(ctx, e.repo, e.fwdBin, "./tools/bench/cmd/fwd"); err != nil {
			return err
		}
	}
	if e.wantMinimal && e.minimalBin == "" {
		manifest, err := filepath.Abs(cmp.Or(e.minimalManifest, filepath.Join(e.repo, "tools", "bench", "minimal-distro.yaml")))
		if err != nil {
			return err
		}
		bin, err := buildDistro(ctx, e.repo, manifest, filepath.Join(e.work, "minimal"))
		if err != nil {
			return err
		}
		e.minimalBin = bin
	}
	return e.install()
}

// buildDistro runs tools/builder on manifest, writing the module into out,
// and returns the binary's path (the builder prints it).
func buildDistro(ctx context.Context, repo, manifest, out string) (string, error) {
	cmd := builderCmd(ctx, repo, manifest, out)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("gobridge-builder --manifest %s: %v\n%s", manifest, err, stderr.String())
	}
	return strings.TrimSpace(string(b)), nil
}

// builderCmd is tools/builder run on manifest, writing into out, with
// extra flags after those.
func builderCmd(ctx context.Context, repo, manifest, out string, extra ...string) *exec.Cmd {
	args := append([]string{"run", "./cmd/gobridge-builder", "--manifest", manifest, "--output", out}, extra...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = filepath.Join(repo, "tools", "builder")
	return cmd
}

// binSize is a binary's size in bytes (0 when unknown).
func binSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

func goBuild(ctx context.Context, dir, out, pkg string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, pkg)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
	}
	return nil
}

// findRabbit locates RabbitMQ's beam.smp process (0 when not found: the
// broker CPU columns stay empty).
func findRabbit() int { return bench.FindProcess("beam.smp", "rabbit") }

// mosquitto starts the harness's own broker on first use.
func (e *env) mosquitto(ctx context.Context) (*mqttio.Broker, error) {
	if e.mosq != nil {
		return e.mosq, nil
	}
	dir := filepath.Join(e.work, "mosquitto")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	b, err := mqttio.StartBroker(ctx, e.mosqBin, dir)
	if err != nil {
		return nil, err
	}
	e.mosq = b
	return b, nil
}

// startRabbit starts the harness's own RabbitMQ node and points the runs
// at it.
func (e *env) startRabbit(ctx context.Context, bin string) error {
	// The node runs as the rabbitmq user, who must reach its directory.
	if err := os.Chmod(e.work, 0o755); err != nil {
		return err
	}
	n, err := amqpio.StartNode(ctx, bin, filepath.Join(e.work, "rabbitmq"))
	if err != nil {
		return err
	}
	e.rabbit, e.amqpURL = n, n.URL
	if e.rabbitPID = n.PID(); e.rabbitPID == 0 {
		return errors.New("the private RabbitMQ node's beam.smp not found")
	}
	return nil
}

// close stops what the environment started.
func (e *env) close() {
	if e.rabbit != nil {
		e.rabbit.Stop()
	}
	if e.mosq != nil {
		e.mosq.Stop()
	}
}
