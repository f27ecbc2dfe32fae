package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// fwdProc is a running forwarder: the gobridge binary or the reference.
type fwdProc struct {
	cmd     *exec.Cmd
	started time.Time
	ready   chan time.Duration // one value: exec to ready
	done    chan error         // one value: the exit
	logPath string
}

// startBridge runs `gobridge run -c cfg -data-dir dir` and reports ready
// when the monitor API answers 200 on /api/v1/monitor/ready.
func startBridge(ctx context.Context, bin, cfgPath, dir string, monitorPort int, extraEnv []string) (*fwdProc, error) {
	p, err := startProc(bin, []string{"run", "-c", cfgPath, "-data-dir", dir}, filepath.Join(dir, "gobridge.log"), nil, extraEnv)
	if err != nil {
		return nil, err
	}
	url := fmt.Sprintf("http://127.0.0.1:%d/api/v1/monitor/ready", monitorPort)
	go func() {
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			resp, err := http.Get(url)
			if err == nil {
				_ = resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					p.ready <- time.Since(p.started)
					return
				}
			}
			select {
			case <-tick.C:
			case <-ctx.Done():
				return
			}
		}
	}()
	return p, nil
}

// startRef runs the reference forwarder, which prints "ready" on stdout.
func startRef(bin string, args []string, dir string, extraEnv []string) (*fwdProc, error) {
	pr, pw := io.Pipe()
	p, err := startProc(bin, args, filepath.Join(dir, "fwd.log"), pw, extraEnv)
	if err != nil {
		return nil, err
	}
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if strings.TrimSpace(sc.Text()) == "ready" {
				p.ready <- time.Since(p.started)
			}
		}
	}()
	return p, nil
}

func startProc(bin string, args []string, logPath string, stdout io.WriteCloser, extraEnv []string) (*fwdProc, error) {
	lf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	if len(extraEnv) > 0 {
		cmd.Env = append(os.Environ(), extraEnv...)
	}
	cmd.Stderr = lf
	cmd.Stdout = lf
	if stdout != nil {
		cmd.Stdout = stdout
	}
	p := &fwdProc{cmd: cmd, ready: make(chan time.Duration, 1), done: make(chan error, 1), logPath: logPath}
	p.started = time.Now()
	if err := cmd.Start(); err != nil {
		_ = lf.Close()
		return nil, err
	}
	go func() {
		err := cmd.Wait()
		_ = lf.Close()
		if stdout != nil {
			_ = stdout.Close()
		}
		p.done <- err
	}()
	return p, nil
}

// pid is the process ID.
func (p *fwdProc) pid() int { return p.cmd.Process.Pid }

// exited reports whether the process ended, without waiting.
func (p *fwdProc) exited() (error, bool) {
	select {
	case err := <-p.done:
		p.done <- err
		return err, true
	default:
		return nil, false
	}
}

// stop sends SIGTERM and waits up to grace, then SIGKILL.
func (p *fwdProc) stop(grace time.Duration) error {
	if _, gone := p.exited(); gone {
		return errors.New("the forwarder had exited before it was stopped")
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.done:
		p.done <- err
		return err
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		err := <-p.done
		p.done <- err
		return fmt.Errorf("did not stop within %v after SIGTERM", grace)
	}
}

// kill sends SIGKILL and waits for the exit.
func (p *fwdProc) kill() {
	_ = p.cmd.Process.Kill()
	err := <-p.done
	p.done <- err
}

// tail is the end of the process's log, for error reports.
func (p *fwdProc) tail() string {
	b, _ := os.ReadFile(p.logPath)
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
