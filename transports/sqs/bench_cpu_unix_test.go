//go:build unix

package sqs

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time the process has used, user and system:
// on a machine shared with other work it shows the cost of a run better
// than the wall clock does.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
