//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package sqlite

import "os"

// lockSupported reports whether Open locks the database file on this
// platform. Here it does not, and Open logs a warning: the operator must
// make sure that one process at a time opens the file.
const lockSupported = false

func tryLock(*os.File, bool) error { return nil }

func unlock(*os.File) error { return nil }
