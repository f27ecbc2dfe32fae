package sqsio

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// Emu is an emulator process of the harness's own (tools/sqsemu's
// binary), so that the emulator CPU a run reads is only the run's.
type Emu struct {
	// Endpoint is the emulator's URL, http://127.0.0.1:port.
	Endpoint string
	cmd      *exec.Cmd
	done     chan error
}

// StartEmu runs bin (the sqsemu command) on a free loopback port, logging
// into dir/sqsemu.log, and returns once it accepts connections.
func StartEmu(ctx context.Context, bin, dir string) (*Emu, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	_ = l.Close()
	log, err := os.Create(filepath.Join(dir, "sqsemu.log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "-addr", addr)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		_ = log.Close()
		return nil, err
	}
	e := &Emu{Endpoint: "http://" + addr, cmd: cmd, done: make(chan error, 1)}
	go func() {
		err := cmd.Wait()
		_ = log.Close()
		e.done <- err
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			_ = c.Close()
			return e, nil
		}
		select {
		case err := <-e.done:
			return nil, fmt.Errorf("sqsio: the emulator exited (%v); see %s", err, log.Name())
		case <-ctx.Done():
			e.Stop()
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			e.Stop()
			return nil, errors.New("sqsio: the emulator did not listen within 30s")
		}
	}
}

// PID is the emulator's process ID, for its CPU.
func (e *Emu) PID() int { return e.cmd.Process.Pid }

// Stop ends the emulator (SIGTERM, then SIGKILL after 5s) and waits.
func (e *Emu) Stop() {
	_ = e.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-e.done:
		e.done <- err
	case <-time.After(5 * time.Second):
		_ = e.cmd.Process.Kill()
		e.done <- <-e.done
	}
}
