package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// install copies the binaries the runs start (the gobridge binary, the
// reference forwarder and, when built, the minimal distro) into the
// scratch directory, and the runs start the copies. A server gets its
// binary by a copy too (a package, an image layer, cp), and how the file
// was written changes how much of it a process maps: on Linux 6.18 with
// ext4, the curated binary run straight from the Go linker's output idles
// at 38.6 MiB of RSS and a cp of the same file at 30.5 MiB, 8 MB of
// file-backed pages apart (docs/benchmarks.md, "Idle RSS of an installed
// binary"). Copying makes the memory figures independent of whether the
// binary was built a moment ago or handed over with -bridge-bin.
func (e *env) install() error {
	dir := filepath.Join(e.work, "installed")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, p := range []*string{&e.bridgeBin, &e.fwdBin, &e.minimalBin} {
		if *p == "" {
			continue
		}
		dst, err := copyExecutable(*p, dir)
		if err != nil {
			return fmt.Errorf("install %s: %w", *p, err)
		}
		*p = dst
	}
	return nil
}

// copyExecutable copies the file src into dir under a name of its own
// and returns the copy's path; the copy is executable.
func copyExecutable(src, dir string) (string, error) {
	in, err := os.Open(src)
	if err != nil {
		return "", err
	}
	defer in.Close()
	out, err := os.CreateTemp(dir, filepath.Base(src)+"-*")
	if err != nil {
		return "", err
	}
	_, cerr := io.Copy(out, in)
	if err := errors.Join(cerr, out.Chmod(0o755), out.Close()); err != nil {
		_ = os.Remove(out.Name())
		return "", err
	}
	return out.Name(), nil
}
