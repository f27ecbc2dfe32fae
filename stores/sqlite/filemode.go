package sqlite

import (
	"errors"
	"io/fs"
	"log/slog"
	"os"
)

// Database files hold every message the bridge took and every dead letter:
// only the process's own user may read them. SQLite creates a new file
// 0644 (less the umask) and gives the -wal and -shm files the database
// file's mode, so a file made 0600 here keeps its companions 0600 too.
const (
	fileMode = 0o600
	dirMode  = 0o700
)

// secureFile creates the database file at path 0600 when it does not exist
// yet, and takes the group and other bits off an existing one and off its
// -wal and -shm files, logging what it changed. A file this process may not
// change is left as it is, with a warning.
func secureFile(path string, log *slog.Logger) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, fileMode)
	if err == nil {
		return f.Close()
	}
	if !errors.Is(err, fs.ErrExist) {
		return openError(path, "cannot create the database file", err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		tighten(p, fileMode, log)
	}
	return nil
}

// privateDir creates dir (and its parents) 0700, or takes the group and
// other bits off it when it exists.
func privateDir(dir string, log *slog.Logger) error {
	if err := os.MkdirAll(dir, dirMode); err != nil {
		return err
	}
	tighten(dir, dirMode, log)
	return nil
}

// tighten sets p to mode when p exists and grants group or other any
// access.
func tighten(p string, mode fs.FileMode, log *slog.Logger) {
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm()&0o077 == 0 {
		return
	}
	if err := os.Chmod(p, mode); err != nil {
		log.Warn("sqlite store: cannot restrict the permissions of a store file; others may read it", "path", p, "mode", fi.Mode().Perm().String(), "err", err)
		return
	}
	log.Info("sqlite store: restricted the permissions of a store file to its owner", "path", p, "was", fi.Mode().Perm().String(), "now", mode.String())
}
