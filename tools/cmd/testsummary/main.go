// Command testsummary turns `go test -json` output into what `make test`
// shows: each package's result line as it ends, the output of failing
// tests, and a record per module; with -report it prints the table of
// every module's result, passed, skipped and failed counts and the
// skipped tests with their reasons, and fails when a module failed.
//
//	go test -json ./... 2>&1 | testsummary -module core -record DIR
//	testsummary -module core -record DIR -fail "allocation pass"
//	testsummary -report DIR
//
// Counts are of top-level tests; a skipped subtest is counted and listed
// too, since a skip is what a reader of the summary looks for. A line that
// is not JSON (a message of the go command itself) is copied through; the
// line "testsummary: exit N" that the Makefile appends carries go test's
// exit status, so a failure that produced no test event still fails.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the command; it returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("testsummary", flag.ContinueOnError)
	fs.SetOutput(stderr)
	module := fs.String("module", "", "module the input belongs to")
	recordDir := fs.String("record", "", "directory to write the module's record to")
	report := fs.String("report", "", "print the summary of the records in this directory")
	fail := fs.String("fail", "", "mark the module's record failed for this reason (a later pass over it failed)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *report != "" {
		recs, err := readRecords(*report)
		if err != nil {
			fmt.Fprintln(stderr, "testsummary:", err)
			return 2
		}
		if !printReport(stdout, recs) {
			return 1
		}
		return 0
	}
	if *module == "" || *recordDir == "" {
		fmt.Fprintln(stderr, "testsummary: -module and -record, or -report, are required")
		return 2
	}
	if *fail != "" {
		recs, err := readRecords(*recordDir)
		if err != nil {
			fmt.Fprintln(stderr, "testsummary:", err)
			return 2
		}
		rec := &record{Module: *module}
		for _, r := range recs {
			if r.Module == *module {
				rec = r
			}
		}
		rec.Extra = append(rec.Extra, *fail)
		if err := writeRecord(*recordDir, rec); err != nil {
			fmt.Fprintln(stderr, "testsummary:", err)
			return 2
		}
		return 1
	}
	rec := follow(stdin, stdout, *module)
	if err := writeRecord(*recordDir, rec); err != nil {
		fmt.Fprintln(stderr, "testsummary:", err)
		return 2
	}
	if rec.Failed() {
		return 1
	}
	return 0
}
