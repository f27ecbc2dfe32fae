package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// event is one line of `go test -json`.
type event struct {
	Action      string
	Package     string
	Test        string
	Elapsed     float64
	Output      string
	ImportPath  string
	FailedBuild string
}

// exitPrefix starts the line the Makefile appends with go test's status.
const exitPrefix = "testsummary: exit "

// follow reads go test -json from in, writes the readable progress to out
// and returns the module's record.
func follow(in io.Reader, out io.Writer, module string) *record {
	rec := &record{Module: module}
	testOut := map[string][]string{} // package + "\x00" + test -> output lines
	pkgOut := map[string][]string{}
	pkgSkips := map[string]int{}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, exitPrefix); ok {
			if n, err := strconv.Atoi(strings.TrimSpace(rest)); err == nil && n != 0 {
				rec.ExitStatus = n
			}
			continue
		}
		var e event
		if !strings.HasPrefix(line, "{") || json.Unmarshal([]byte(line), &e) != nil {
			fmt.Fprintln(out, line)
			continue
		}
		key := e.Package + "\x00" + e.Test
		switch {
		case e.Action == "build-output":
			fmt.Fprint(out, e.Output)
		case e.Action == "build-fail":
			rec.BuildFailed = append(rec.BuildFailed, e.ImportPath)
		case e.Action == "output" && e.Test != "":
			testOut[key] = append(testOut[key], e.Output)
		case e.Action == "output":
			pkgOut[e.Package] = append(pkgOut[e.Package], e.Output)
		case e.Test != "" && e.Action == "pass":
			if !strings.Contains(e.Test, "/") {
				rec.Passed++
			}
			delete(testOut, key)
		case e.Test != "" && e.Action == "skip":
			rec.Skips = append(rec.Skips, skip{Package: e.Package, Test: e.Test, Reason: skipReason(testOut[key])})
			pkgSkips[e.Package]++
			delete(testOut, key)
		case e.Test != "" && e.Action == "fail":
			if !strings.Contains(e.Test, "/") {
				rec.FailedTests = append(rec.FailedTests, e.Package+" "+e.Test)
			}
			for _, l := range testOut[key] {
				fmt.Fprint(out, l)
			}
			delete(testOut, key)
		case e.Test == "" && e.Action == "pass":
			fmt.Fprintf(out, "ok  \t%s\t%.3fs%s\n", e.Package, e.Elapsed, skipNote(pkgSkips[e.Package]))
		case e.Test == "" && e.Action == "skip":
			fmt.Fprintf(out, "?   \t%s\t[no test files]\n", e.Package)
		case e.Test == "" && e.Action == "fail":
			// The package's own output: a panic outside a test, a
			// timeout, a build failure's summary line.
			for _, l := range pkgOut[e.Package] {
				fmt.Fprint(out, l)
			}
			rec.FailedPackages = append(rec.FailedPackages, e.Package)
			if !strings.Contains(strings.Join(pkgOut[e.Package], ""), "FAIL\t"+e.Package) {
				fmt.Fprintf(out, "FAIL\t%s\t%.3fs\n", e.Package, e.Elapsed)
			}
		}
		if e.Test == "" && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip") {
			delete(pkgOut, e.Package)
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(out, "testsummary: reading go test output:", err)
		rec.ExitStatus = 1
	}
	return rec
}

// skipReason is the last line a skipped test logged: its t.Skip message.
func skipReason(lines []string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "=== ") || strings.HasPrefix(l, "--- SKIP") {
			continue
		}
		// "file_test.go:12: reason" -> "reason"
		if _, after, ok := strings.Cut(l, ": "); ok && strings.Contains(l[:strings.Index(l, ": ")], ".go:") {
			return after
		}
		return l
	}
	return ""
}

func skipNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("\t(%d skipped)", n)
}
