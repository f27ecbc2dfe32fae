package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// stream is go test -json output of two packages: one passes with a
// skipped test and a skipped subtest, one fails a test.
const stream = `{"Action":"start","Package":"m/a"}
{"Action":"run","Package":"m/a","Test":"TestOK"}
{"Action":"output","Package":"m/a","Test":"TestOK","Output":"=== RUN   TestOK\n"}
{"Action":"pass","Package":"m/a","Test":"TestOK","Elapsed":0.01}
{"Action":"run","Package":"m/a","Test":"TestBroker"}
{"Action":"output","Package":"m/a","Test":"TestBroker","Output":"=== RUN   TestBroker\n"}
{"Action":"output","Package":"m/a","Test":"TestBroker","Output":"    broker_test.go:12: broker 127.0.0.1:5672 unreachable\n"}
{"Action":"output","Package":"m/a","Test":"TestBroker","Output":"--- SKIP: TestBroker (0.00s)\n"}
{"Action":"skip","Package":"m/a","Test":"TestBroker","Elapsed":0}
{"Action":"run","Package":"m/a","Test":"TestTable"}
{"Action":"run","Package":"m/a","Test":"TestTable/azure"}
{"Action":"output","Package":"m/a","Test":"TestTable/azure","Output":"    t_test.go:3: no credentials\n"}
{"Action":"skip","Package":"m/a","Test":"TestTable/azure"}
{"Action":"pass","Package":"m/a","Test":"TestTable"}
{"Action":"output","Package":"m/a","Output":"ok  \tm/a\t0.02s\n"}
{"Action":"pass","Package":"m/a","Elapsed":0.02}
{"Action":"skip","Package":"m/c"}
go: downloading example.com/x v1.0.0
{"Action":"run","Package":"m/b","Test":"TestBad"}
{"Action":"output","Package":"m/b","Test":"TestBad","Output":"=== RUN   TestBad\n"}
{"Action":"output","Package":"m/b","Test":"TestBad","Output":"    b_test.go:9: got 1, want 2\n"}
{"Action":"output","Package":"m/b","Test":"TestBad","Output":"--- FAIL: TestBad (0.00s)\n"}
{"Action":"fail","Package":"m/b","Test":"TestBad","Elapsed":0}
{"Action":"output","Package":"m/b","Output":"FAIL\n"}
{"Action":"output","Package":"m/b","Output":"FAIL\tm/b\t0.01s\n"}
{"Action":"fail","Package":"m/b","Elapsed":0.01}
testsummary: exit 1
`

func TestFollow(t *testing.T) {
	var out bytes.Buffer
	rec := follow(strings.NewReader(stream), &out, "m")
	want := &record{Module: "m", Passed: 2, FailedTests: []string{"m/b TestBad"}, FailedPackages: []string{"m/b"},
		Skips: []skip{
			{Package: "m/a", Test: "TestBroker", Reason: "broker 127.0.0.1:5672 unreachable"},
			{Package: "m/a", Test: "TestTable/azure", Reason: "no credentials"},
		}, ExitStatus: 1}
	if diff := cmp.Diff(want, rec); diff != "" {
		t.Errorf("record (-want +got):\n%s", diff)
	}
	wantOut := "ok  \tm/a\t0.020s\t(2 skipped)\n" +
		"?   \tm/c\t[no test files]\n" +
		"go: downloading example.com/x v1.0.0\n" +
		"=== RUN   TestBad\n    b_test.go:9: got 1, want 2\n--- FAIL: TestBad (0.00s)\n" +
		"FAIL\nFAIL\tm/b\t0.01s\n"
	if diff := cmp.Diff(wantOut, out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

func TestReport(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	if code := run([]string{"-module", "core", "-record", dir}, strings.NewReader(stream), &out, &out); code != 1 {
		t.Errorf("a failing module: exit %d, want 1", code)
	}
	ok := `{"Action":"run","Package":"m/s","Test":"TestS"}
{"Action":"pass","Package":"m/s","Test":"TestS"}
{"Action":"pass","Package":"m/s"}
testsummary: exit 0
`
	if code := run([]string{"-module", "stores/sqlite", "-record", dir}, strings.NewReader(ok), &out, &out); code != 0 {
		t.Errorf("a passing module: exit %d, want 0", code)
	}
	if code := run([]string{"-module", "stores/sqlite", "-record", dir, "-fail", "allocation pass"}, nil, &out, &out); code != 1 {
		t.Errorf("-fail: exit %d, want 1", code)
	}
	out.Reset()
	if code := run([]string{"-report", dir}, nil, &out, &out); code != 1 {
		t.Errorf("report: exit %d, want 1", code)
	}
	want := `== summary
  FAIL  core               2 passed     2 skipped    1 failed
  FAIL  stores/sqlite      1 passed     0 skipped    0 failed  (allocation pass)
  total: 2 modules, 2 failed; 3 tests passed, 2 skipped, 1 failed
skipped:
  m/a TestBroker: broker 127.0.0.1:5672 unreachable
  m/a TestTable/azure: no credentials
FAIL: m/b TestBad
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
}
