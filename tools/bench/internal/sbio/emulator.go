// Package sbio is the harness's Azure Service Bus side: a private instance
// of the project's emulator (sbemu) with the process ID the harness needs
// for its CPU, the load generator that preloads a source queue with
// stamped messages, and the sink that counts what reaches the target queue.
package sbio

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gobridge-oss/gobridge/transports/servicebus/sbemu"
)

// Emulator is a running emulator with the queues of one run.
type Emulator struct {
	*sbemu.Emulator
	pid int
}

// Start runs an emulator of its own on a free port of 127.0.0.1 holding
// the given queues (empty), and finds its process: the interpreter this
// process started for it.
func Start(ctx context.Context, queues ...string) (*Emulator, error) {
	var ents []sbemu.Entity
	for _, q := range queues {
		ents = append(ents, sbemu.Entity{Name: q})
	}
	before := children("python3")
	e, err := sbemu.Start(ctx, sbemu.Options{Entities: ents})
	if err != nil {
		return nil, fmt.Errorf("sbio: %w", err)
	}
	var fresh []int
	for _, pid := range children("python3") {
		if !slices.Contains(before, pid) {
			fresh = append(fresh, pid)
		}
	}
	if len(fresh) != 1 {
		_ = e.Close()
		return nil, fmt.Errorf("sbio: %d new interpreter processes after starting the emulator, want 1", len(fresh))
	}
	return &Emulator{Emulator: e, pid: fresh[0]}, nil
}

// PID is the emulator's process ID, for its CPU time.
func (e *Emulator) PID() int { return e.pid }

// children are the running child processes of this process whose command
// name is comm.
func children(comm string) []int {
	me := strconv.Itoa(os.Getpid())
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var out []int
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "stat"))
		if err != nil {
			continue
		}
		name, ppid, err := commAndParent(string(b))
		if err != nil || name != comm || ppid != me {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(d)); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// commAndParent reads the command name (field 2, in parentheses, which may
// itself hold spaces and parentheses) and the parent's PID (field 4) out of
// a /proc/PID/stat file.
func commAndParent(stat string) (comm, ppid string, err error) {
	open, end := strings.IndexByte(stat, '('), strings.LastIndexByte(stat, ')')
	if open < 0 || end < open {
		return "", "", errors.New("sbio: /proc stat without a command name")
	}
	f := strings.Fields(stat[end+1:])
	if len(f) < 2 {
		return "", "", errors.New("sbio: /proc stat too short")
	}
	return stat[open+1 : end], f[1], nil
}
