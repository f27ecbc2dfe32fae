//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package sqlite

import (
	"errors"
	"os"
	"syscall"
)

// lockSupported reports whether Open locks the database file on this
// platform.
const lockSupported = true

// tryLock takes an exclusive flock on f (a shared one when shared is set)
// without waiting. flock locks belong to the open file, not the process,
// so a second open of the same file in this process is refused as well;
// the kernel drops the lock when the holder exits, however it exits.
func tryLock(f *os.File, shared bool) error {
	how := syscall.LOCK_EX
	if shared {
		how = syscall.LOCK_SH
	}
	return control(f, func(fd uintptr) error {
		for {
			err := syscall.Flock(int(fd), how|syscall.LOCK_NB)
			switch {
			case errors.Is(err, syscall.EINTR):
				continue
			case errors.Is(err, syscall.EWOULDBLOCK):
				return errLockHeld
			}
			return err
		}
	})
}

// unlock gives up the flock on f.
func unlock(f *os.File) error {
	return control(f, func(fd uintptr) error { return syscall.Flock(int(fd), syscall.LOCK_UN) })
}

// control runs op on f's descriptor.
func control(f *os.File, op func(fd uintptr) error) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var opErr error
	if err := rc.Control(func(fd uintptr) { opErr = op(fd) }); err != nil {
		return err
	}
	return opErr
}
