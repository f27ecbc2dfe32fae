package builder

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// BuildError is a failed go command, with what it printed.
type BuildError struct {
	// Args is the go command that failed.
	Args []string
	// Stderr is what it printed on standard error.
	Stderr string
	// Err is how it ended.
	Err error
}

// Error implements error.
func (e *BuildError) Error() string {
	return fmt.Sprintf("go %s: %v\n%s", strings.Join(e.Args, " "), e.Err, strings.TrimRight(e.Stderr, "\n"))
}

// Unwrap returns how the command ended.
func (e *BuildError) Unwrap() error { return e.Err }

// Compile runs `go mod tidy` and `go build` in outputDir, where Generate's
// files were written, outside any workspace (GOWORK=off) and allowed to
// update go.mod (-mod=mod). It returns the binary's absolute path,
// outputDir/dist.name. The go commands' standard error is copied to
// progress as it comes (nil discards it) and kept in a *BuildError on
// failure.
func (m *Manifest) Compile(ctx context.Context, outputDir string, progress io.Writer) (string, error) {
	out, err := filepath.Abs(outputDir)
	if err != nil {
		return "", err
	}
	bin := filepath.Join(out, m.Dist.Name)
	pkg := "./" + m.Dist.PackageDir
	for _, args := range [][]string{
		{"mod", "tidy"},
		{"build", "-o", bin, pkg},
	} {
		if err := goCommand(ctx, out, args, progress); err != nil {
			return "", err
		}
	}
	return bin, nil
}

// goCommand runs go with args in dir.
func goCommand(ctx context.Context, dir string, args []string, progress io.Writer) error {
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -mod=mod"))
	cmd.Stdout = io.Discard
	cmd.Stderr = &stderr
	if progress != nil {
		cmd.Stderr = io.MultiWriter(&stderr, progress)
	}
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%w)", err, ctx.Err())
		}
		return &BuildError{Args: args, Stderr: stderr.String(), Err: err}
	}
	return nil
}
