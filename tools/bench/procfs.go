package bench

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ClockTick is the unit of the CPU times in /proc/PID/stat: USER_HZ, which
// is 100 on every Linux architecture Go supports.
const ClockTick = 10 * time.Millisecond

// ProcCPU returns the user+system CPU time a process has used so far (all
// its threads), from /proc/PID/stat.
func ProcCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	return ParseStatCPU(b)
}

// ParseStatCPU reads utime+stime out of the contents of a /proc/PID/stat
// file. The command name (field 2) may contain spaces and parentheses, so
// fields are counted from the last ')'.
func ParseStatCPU(b []byte) (time.Duration, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, errors.New("bench: /proc stat without a command name")
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state); utime is field 14, stime field 15.
	if len(f) < 13 {
		return 0, errors.New("bench: /proc stat too short")
	}
	u, err1 := strconv.ParseUint(f[11], 10, 64)
	s, err2 := strconv.ParseUint(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("bench: /proc stat times: %w", err)
	}
	return time.Duration(u+s) * ClockTick, nil
}

// ProcHWM returns a process's peak resident set size in bytes (VmHWM in
// /proc/PID/status).
func ProcHWM(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	return ParseStatusKB(b, "VmHWM")
}

// ProcRSS returns a process's current resident set size in bytes (VmRSS).
func ProcRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	return ParseStatusKB(b, "VmRSS")
}

// ProcStatusKB returns a "Key: N kB" field of /proc/PID/status in bytes
// (RssAnon: heap and stacks; RssFile: mapped files, the binary's text).
func ProcStatusKB(pid int, key string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	return ParseStatusKB(b, key)
}

// ParseStatusKB reads a "Key:   123 kB" line of a /proc/PID/status file
// and returns the value in bytes.
func ParseStatusKB(b []byte, key string) (int64, error) {
	for line := range strings.SplitSeq(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || k != key {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 0 {
			break
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("bench: %s: %w", key, err)
		}
		return n * 1024, nil
	}
	return 0, fmt.Errorf("bench: no %s in /proc status", key)
}

// LoadAvg returns the 1-, 5- and 15-minute load averages as printed in
// /proc/loadavg ("" when unreadable).
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// FindProcessWithEnv returns the PID of a process named comm whose
// environment holds the entry kv ("NAME=value"), 0 when there is none:
// how to find the VM a start script spawned under another user and
// session. Reading another user's environment needs root.
func FindProcessWithEnv(comm, kv string) int {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		c, err := os.ReadFile(filepath.Join(d, "comm"))
		if err != nil || strings.TrimSpace(string(c)) != comm {
			continue
		}
		env, err := os.ReadFile(filepath.Join(d, "environ"))
		if err != nil || !HasEnvEntry(env, kv) {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(d)); err == nil {
			return pid
		}
	}
	return 0
}

// HasEnvEntry reports whether the NUL-separated contents of a
// /proc/PID/environ file hold exactly the entry kv.
func HasEnvEntry(environ []byte, kv string) bool {
	for e := range bytes.SplitSeq(environ, []byte{0}) {
		if string(e) == kv {
			return true
		}
	}
	return false
}

// FindProcess returns the PID of the first process whose command name
// (/proc/PID/comm) is comm and whose command line contains arg ("" for
// any); 0 when there is none.
func FindProcess(comm, arg string) int {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		c, err := os.ReadFile(filepath.Join(d, "comm"))
		if err != nil || strings.TrimSpace(string(c)) != comm {
			continue
		}
		if arg != "" {
			cl, err := os.ReadFile(filepath.Join(d, "cmdline"))
			if err != nil || !bytes.Contains(cl, []byte(arg)) {
				continue
			}
		}
		pid, err := strconv.Atoi(filepath.Base(d))
		if err == nil {
			return pid
		}
	}
	return 0
}
