package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// skip is one skipped test.
type skip struct {
	Package string
	Test    string
	Reason  string
}

// record is one module's result, kept between the module's run and the
// report as a JSON file.
type record struct {
	Module         string
	Passed         int
	FailedTests    []string
	FailedPackages []string
	BuildFailed    []string
	Skips          []skip
	// ExitStatus is go test's, from the line the Makefile appends.
	ExitStatus int
	// Extra are failures of later passes over the module (the Makefile's
	// allocation pass), appended with -fail.
	Extra []string
}

// Failed reports whether anything of the module failed.
func (r *record) Failed() bool {
	return len(r.FailedTests) > 0 || len(r.FailedPackages) > 0 || len(r.BuildFailed) > 0 || r.ExitStatus != 0 || len(r.Extra) > 0
}

func recordPath(dir, module string) string {
	return filepath.Join(dir, strings.ReplaceAll(module, "/", "__")+".json")
}

func writeRecord(dir string, r *record) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(recordPath(dir, r.Module), b, 0o644)
}

// readRecords reads every record of dir, in module order.
func readRecords(dir string) ([]*record, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	var out []*record
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		r := &record{}
		if err := json.Unmarshal(b, r); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b *record) int { return strings.Compare(a.Module, b.Module) })
	return out, nil
}

// printReport writes the summary table and reports whether every module
// passed.
func printReport(w io.Writer, recs []*record) bool {
	fmt.Fprintln(w, "== summary")
	width := 0
	for _, r := range recs {
		width = max(width, len(r.Module))
	}
	var passed, skipped, failed, modFailed int
	for _, r := range recs {
		status := "ok"
		if r.Failed() {
			status = "FAIL"
			modFailed++
		}
		nf := len(r.FailedTests)
		passed, skipped, failed = passed+r.Passed, skipped+len(r.Skips), failed+nf
		fmt.Fprintf(w, "  %-4s  %-*s  %5d passed  %4d skipped  %3d failed%s\n", status, width, r.Module, r.Passed, len(r.Skips), nf, why(r))
	}
	fmt.Fprintf(w, "  total: %d modules, %d failed; %d tests passed, %d skipped, %d failed\n", len(recs), modFailed, passed, skipped, failed)
	var skips []string
	for _, r := range recs {
		for _, s := range r.Skips {
			skips = append(skips, fmt.Sprintf("  %s %s: %s", strings.TrimPrefix(s.Package, "github.com/gobridge-oss/gobridge/"), s.Test, s.Reason))
		}
	}
	if len(skips) > 0 {
		fmt.Fprintln(w, "skipped:")
		for _, s := range skips {
			fmt.Fprintln(w, s)
		}
	}
	for _, r := range recs {
		for _, t := range r.FailedTests {
			fmt.Fprintf(w, "FAIL: %s\n", t)
		}
	}
	return modFailed == 0
}

// why says what failed beyond tests.
func why(r *record) string {
	var parts []string
	if len(r.BuildFailed) > 0 {
		parts = append(parts, "build failed: "+strings.Join(r.BuildFailed, ", "))
	}
	if len(r.FailedTests) == 0 && len(r.FailedPackages) > 0 {
		parts = append(parts, "package failed: "+strings.Join(r.FailedPackages, ", "))
	}
	if r.ExitStatus != 0 && len(r.FailedTests) == 0 && len(r.FailedPackages) == 0 && len(r.BuildFailed) == 0 {
		parts = append(parts, fmt.Sprintf("go test exited %d", r.ExitStatus))
	}
	parts = append(parts, r.Extra...)
	if len(parts) == 0 {
		return ""
	}
	return "  (" + strings.Join(parts, "; ") + ")"
}
