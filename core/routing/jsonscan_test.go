package routing

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gobridge-oss/gobridge/core/jsontext"

	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/google/go-cmp/cmp"
)

func mustPath(t testing.TB, p string) []segment {
	t.Helper()
	segs, err := parsePath(p)
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	return segs
}

func TestScannerAgreesWithEncodingJSON(t *testing.T) {
	docs := []string{
		testPayload,
		benchPayload,
		`{"a":1,"a":2}`,
		`{"a":{"b":1},"a":{"c":2}}`,
		`{"a":{"b":1},"a":3}`,
		`{"a":[1,[2,[3,{"b":"deep"}]]]}`,
		`[{"a":"x"},{"a":"y"}]`,
		`"top"`, `42`, `null`, `true`,
		`{"s":"\ud800"}`, `{"s":"\udc00\ud800x"}`, `{"s":"\ud83d\ude00"}`, `{"s":"\ud83d\u0041"}`,
		"{\"s\":\"\xff\xfeok\"}", "{\"\xff\":\"bad-key\"}", `{"s":"\u0000"}`,
		`{"n":-0}`, `{"n":1E+2}`, `{"n":1e-0}`, `{"n":123456789012345678901234567890}`,
		`{"a" : [ ] , "b" : { } }`,
		" \t\r\n{\"a\":\"ws\"}\n ",
		`{"a":1}x`, `{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":-}`, `{"a":1e}`, `{"a":"\x"}`,
		`{"a":"\u12"}`, `{"a" 1}`, `{,}`, `[1,]`, `[1 2]`, `{"a":1,}`, `{"a":tru}`, `{"a":nul}`,
		"{\"a\":\"\x1f\"}", `{"a":"unterminated`, `{"a":[1,{"b":2]}`, ``, ` `, `{}`, `[]`,
		`{"a":"x"}{`, `{"a":[[[[[]]]]]}`,
	}
	paths := []string{"$.a", "$.a.b", "$.a.c", "$.a[0]", "$.a.1.1.1.b", "$[1].a", "$.s", "$.n", "$.b", "$.\ufffd",
		"$.order.lines.1.sku", "$.esc", "$.big", "$.0", "$.uA", "$.routing.region", "$.order.lines[3].name"}
	for _, d := range docs {
		for _, p := range paths {
			segs := mustPath(t, p)
			want, wv := stdlibLookup([]byte(d), segs)
			got, gv := ourLookup([]byte(d), segs)
			if wv != gv || want != got {
				t.Errorf("doc %q path %s: stdlib (%v,%v) ours (%v,%v)", d, p, want, wv, got, gv)
			}
		}
	}
}

func TestScannerDepthLimit(t *testing.T) {
	for _, n := range []int{maxDepth - 1, maxDepth, maxDepth + 1} {
		for _, open := range []string{"[", `{"a":`} {
			close := "]"
			if open != "[" {
				close = "}"
			}
			doc := []byte(strings.Repeat(open, n) + "1" + strings.Repeat(close, n))
			for _, p := range []string{"$.z", "$.a", "$[0]"} {
				segs := mustPath(t, p)
				_, wv := stdlibLookup(doc, segs)
				_, gv := ourLookup(doc, segs)
				if wv != gv {
					t.Errorf("depth %d %s path %s: stdlib valid=%v ours=%v", n, open, p, wv, gv)
				}
			}
		}
	}
	// Walking a path down a deep document counts depth as well.
	deep := strings.Repeat(`{"a":`, maxDepth+1) + "1" + strings.Repeat("}", maxDepth+1)
	if _, ok := ourLookup([]byte(deep), mustPath(t, "$.a.a.a")); ok {
		t.Error("document deeper than the limit accepted")
	}
}

func TestScannerManyPaths(t *testing.T) {
	// More paths than an Input holds inline.
	var conds []Condition
	var doc strings.Builder
	doc.WriteString("{")
	for i := range 12 {
		if i > 0 {
			doc.WriteString(",")
		}
		fmt.Fprintf(&doc, `"k%d":%d`, i, i)
		conds = append(conds, Condition{Field: fmt.Sprintf("$.k%d", i), Operator: OpEq, Value: i})
	}
	doc.WriteString("}")
	m, err := Compile(conds)
	if err != nil {
		t.Fatal(err)
	}
	in := NewInput(messaging.NewEnvelope("s", []byte(doc.String())))
	if !m.Match(&in) || in.scans != 1 {
		t.Fatalf("match failed or scans=%d", in.scans)
	}
	in.Reset(messaging.NewEnvelope("s", []byte(`{"k0":0}`)))
	if m.Match(&in) || in.scans != 1 {
		t.Fatalf("match after reset: scans=%d", in.scans)
	}
}

func TestPayloadScannedAtMostOnce(t *testing.T) {
	env := testEnv()
	cases := []struct {
		name  string
		conds []Condition
		want  bool
		scans int
	}{
		{"headers only", []Condition{{Field: "x-tenant", Operator: OpEq, Value: "acme"}, {Field: "subject", Operator: OpPrefix, Value: "orders"}}, true, 0},
		{"header fails first", []Condition{{Field: "x-tenant", Operator: OpEq, Value: "nope"}, {Field: "$.flag", Operator: OpEq, Value: true}}, false, 0},
		{"many payload fields", []Condition{
			{Field: "$.flag", Operator: OpEq, Value: true},
			{Field: "$.order.id", Operator: OpEq, Value: "o-1"},
			{Field: "$.order.lines[1].sku", Operator: OpEq, Value: "Y2"},
			{Field: "$.order.id", Operator: OpPrefix, Value: "o"},
			{Field: "$.missing", Operator: OpExists, Value: false},
		}, true, 1},
	}
	got := map[string][2]any{}
	want := map[string][2]any{}
	for _, c := range cases {
		m, err := Compile(c.conds)
		if err != nil {
			t.Fatal(err)
		}
		in := NewInput(env)
		r := m.Match(&in)
		r = m.Match(&in) && r // a second evaluation must reuse the scan
		got[c.name] = [2]any{r, in.scans}
		want[c.name] = [2]any{c.want, c.scans}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestRulesShareOneScan(t *testing.T) {
	bindings := []Binding{{ID: "a"}, {ID: "b"}, {ID: "c"}}
	spec := ResolverSpec{Type: TypeRules, Rules: []Rule{
		{BindingID: "a", Match: []Condition{{Field: "$.order.id", Operator: OpEq, Value: "nope"}}},
		{BindingID: "b", Match: []Condition{{Field: "$.flag", Operator: OpEq, Value: false}}},
		{BindingID: "c", Match: []Condition{{Field: "$.order.lines[1].sku", Operator: OpEq, Value: "Y2"}}},
	}}
	r, err := NewResolver(spec, bindings)
	if err != nil {
		t.Fatal(err)
	}
	rp := r.(*resolver).pick.(*rulesPicker)
	env := testEnv()
	in := NewInput(env)
	winner := ""
	for _, rule := range rp.rules {
		if rule.m.Match(&in) {
			winner = rule.plans[0].BindingID
			break
		}
	}
	if winner != "c" || in.scans != 1 {
		t.Fatalf("winner %q after %d scans; want c after 1", winner, in.scans)
	}
	plans, err := r.Resolve(context.Background(), env)
	if err != nil || plans[0].BindingID != "c" {
		t.Fatalf("Resolve = %v, %v", plans, err)
	}
}

func TestSeparateMatchersRescanCorrectly(t *testing.T) {
	m1, _ := Compile([]Condition{{Field: "$.flag", Operator: OpEq, Value: true}})
	m2, _ := Compile([]Condition{{Field: "$.order.qty", Operator: OpEq, Value: 3}})
	in := NewInput(testEnv())
	if !m1.Match(&in) || !m2.Match(&in) || !m1.Match(&in) {
		t.Fatal("matchers from separate Compile calls disagree on one Input")
	}
}

func TestAppendUnquoted(t *testing.T) {
	cases := map[string]string{
		`plain`:        "plain",
		`a\"b\\c\/d`:   `a"b\c/d`,
		`\b\f\n\r\t`:   "\b\f\n\r\t",
		`\u00e9\u4e2d`: "é中",
		`\ud83d\ude00`: "😀",
		`\ud83d`:       "\ufffd",
		`\ude00\ud83d`: "\ufffd\ufffd",
		`\ud83dx`:      "\ufffdx",
		`\ud83d\u0041`: "\ufffdA",
		"\xff" + `\n`:  "\ufffd\n",
		"ok\xe2\x82":   "ok\ufffd\ufffd",
		"\xed\xa0\x80": "\ufffd\ufffd\ufffd",
	}
	for in, want := range cases {
		got := string(jsontext.AppendUnquoted(nil, []byte(in)))
		var ref string
		if err := json.Unmarshal([]byte(`"`+in+`"`), &ref); err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if got != want || got != ref {
			t.Errorf("%q: got %q, want %q, encoding/json %q", in, got, want, ref)
		}
	}
}

func TestStrSpecialFindsFirstSpecialByte(t *testing.T) {
	special := func(c byte) bool { return c == '"' || c == '\\' || c < 0x20 || c >= 0x80 }
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte{'a', 'Z', ' ', '"', '\\', 0x00, 0x01, 0x1f, 0x20, 0x21, 0x23, 0x5b, 0x5d, 0x7f, 0x80, 0xff}
	for range 200000 {
		var w [8]byte
		for i := range w {
			w[i] = alphabet[rng.IntN(len(alphabet))]
		}
		first := 8
		for i, c := range w {
			if special(c) {
				first = i
				break
			}
		}
		m := strSpecial(binary.LittleEndian.Uint64(w[:]))
		got := 8
		if m != 0 {
			got = bits.TrailingZeros64(m) >> 3
		}
		if got != first {
			t.Fatalf("%q: first special byte %d, strSpecial says %d", w, first, got)
		}
	}
}
