package sqlite

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// errLockHeld is what tryLock returns when another open file holds the
// lock.
var errLockHeld = errors.New("lock held")

// fileLock is the exclusive lock a Store holds on its database file from
// Open to Close. It lives on a sidecar file, path + ".lock", rather than on
// the database itself: SQLite takes its own POSIX locks on the database,
// and on file systems that emulate whole-file locks with POSIX ones the two
// would collide. The holder's PID is written into the lock file so that the
// refusal can name it. The lock file is never deleted: removing it would
// let a third opener lock a new file while a second still waits on the old
// one.
type fileLock struct {
	f      *os.File
	shared bool
}

// lockPath is the sidecar lock file of the database at path.
func lockPath(path string) string { return path + ".lock" }

// lockStore takes the exclusive lock of the database at path without
// waiting. A lock held in this process (another Store on the same file) is
// an INVALID_CONFIG error: the configuration opens one file twice and will
// never work. A lock held by another process is UNAVAILABLE: it goes away
// when that process stops, as a database locked past the busy timeout does.
// On a platform without file locks it returns a nil lock and no error.
//
// A shared store (WithShared) takes the lock shared instead: any number
// of shared stores may hold it together, and no exclusive one meanwhile.
func lockStore(path string, shared bool) (*fileLock, error) {
	if !lockSupported {
		return nil, nil
	}
	lp := lockPath(path)
	f, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE, fileMode)
	if err != nil {
		return nil, openError(path, "cannot open the lock file "+lp, err)
	}
	if err := tryLock(f, shared); err != nil {
		holder := readHolder(f)
		_ = f.Close()
		if errors.Is(err, errLockHeld) {
			return nil, heldError(path, lp, holder, shared)
		}
		return nil, openError(path, "cannot lock "+lp+" (the file system must support flock)", err)
	}
	l := &fileLock{f: f, shared: shared}
	if shared {
		// Several processes hold a shared lock: none of them names itself.
		return l, nil
	}
	pid := []byte(strconv.Itoa(os.Getpid()) + "\n")
	if err := f.Truncate(0); err != nil {
		l.release()
		return nil, openError(path, "cannot write the lock file "+lp, err)
	}
	if _, err := f.WriteAt(pid, 0); err != nil {
		l.release()
		return nil, openError(path, "cannot write the lock file "+lp, err)
	}
	return l, nil
}

// heldError is the refusal of an Open whose file another store holds.
func heldError(path, lp string, holder int, shared bool) error {
	const why = "two stores on one file would claim and send the same records under the zero fencing token"
	switch {
	case shared:
		return fault.ErrUnavailable.WithMessage(fmt.Sprintf(
			"sqlite store %s: a process holds the file (lock %s) for itself alone; a shared store (shared: true, the processes of a clustered bridge fenced by leases) can only open it once that process stopped",
			path, lp))
	case holder == 0 && !shared:
		return fault.ErrUnavailable.WithMessage(fmt.Sprintf(
			"sqlite store %s: other gobridge processes hold the file (lock %s), shared or starting; %s, so a store that is not shared (shared: true, clustered and fenced by leases) may open it only alone",
			path, lp, why))
	case holder == os.Getpid():
		return fault.ErrInvalidConfig.WithMessage(fmt.Sprintf(
			"sqlite store %s: this process (PID %d) already has the file open as another store; %s. "+
				"Give the store roles identical settings so that they share one store, or use separate files",
			path, holder, why))
	case holder > 0:
		return fault.ErrUnavailable.WithMessage(fmt.Sprintf(
			"sqlite store %s: another gobridge process (PID %d) holds the file (lock %s); %s, so only one process may open it at a time",
			path, holder, lp, why))
	default:
		return fault.ErrUnavailable.WithMessage(fmt.Sprintf(
			"sqlite store %s: another gobridge process holds the file (lock %s); %s, so only one process may open it at a time",
			path, lp, why))
	}
}

// readHolder returns the PID written in the lock file, or 0 when there is
// none (the holder may be between taking the lock and writing it).
func readHolder(f *os.File) int {
	buf := make([]byte, 32)
	n, _ := f.ReadAt(buf, 0)
	pid, err := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// release empties the lock file and gives the lock up. It is safe on a nil
// lock.
func (l *fileLock) release() {
	if l == nil || l.f == nil {
		return
	}
	// An emptied file never names a process that has gone.
	if !l.shared {
		_ = l.f.Truncate(0)
	}
	_ = unlock(l.f)
	_ = l.f.Close()
	l.f = nil
}
