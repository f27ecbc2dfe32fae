package routing

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
)

// FuzzConditionJSON feeds arbitrary payloads and paths to the scanner and
// the matcher. Nothing may panic; the scanner must judge validity exactly
// as encoding/json does, and on valid documents extract the same value.
func FuzzConditionJSON(f *testing.F) {
	f.Add([]byte(testPayload), ".order.lines[1].sku")
	f.Add([]byte(benchPayload), ".routing.region")
	f.Add([]byte(`{"a":{"b":1},"a":{"c":2}}`), ".a.b")
	f.Add([]byte(`{"s":"\ud83d\ude00\ud800"}`), ".s")
	f.Add([]byte(`[1,[2,{"x":-1.5e300}]]`), "[1][1].x")
	f.Add([]byte("{\"k\xff\":\"v\"}"), ".k\ufffd")
	f.Add([]byte(`{"a":1`), ".a")
	f.Fuzz(func(t *testing.T, payload []byte, path string) {
		field := "$" + path
		env := messaging.NewEnvelopeFromImmutablePayload("s", payload)
		for _, c := range []Condition{
			{Field: field, Operator: OpExists},
			{Field: field, Operator: OpRegex, Value: "a"},
			{Field: field, Operator: OpGt, Value: 0},
			{Field: field, Operator: OpEq, Value: []any{1.5, "x", nil}},
		} {
			if m, err := Compile([]Condition{c}); err == nil {
				in := NewInput(env)
				m.Match(&in)
			}
		}
		segs, err := parsePath(field)
		if err != nil {
			return
		}
		want, wv := stdlibLookup(payload, segs)
		got, gv := ourLookup(payload, segs)
		if wv != gv {
			t.Fatalf("validity: encoding/json %v, scanner %v", wv, gv)
		}
		if want != got {
			t.Fatalf("value: encoding/json %+v, scanner %+v", want, got)
		}
		var value any
		switch want.Kind {
		case "null":
		case "bool":
			value = want.Val == "true"
		case "number":
			value = json.Number(want.Val)
		case "string":
			value = want.Val
		default:
			return
		}
		m, err := Compile([]Condition{{Field: field, Operator: OpEq, Value: value}, {Field: field, Operator: OpIn, Value: []any{value}}})
		if err != nil {
			t.Fatal(err)
		}
		in := NewInput(env)
		if !m.Match(&in) {
			t.Fatalf("eq %#v does not match the value encoding/json extracted", value)
		}
		if in.scans != 1 {
			t.Fatalf("%d scans", in.scans)
		}
	})
}

// FuzzCompile feeds arbitrary fields, operators and values to Compile.
// It must return a matcher or an INVALID_CONFIG error, never panic, and a
// matcher must evaluate without panicking.
func FuzzCompile(f *testing.F) {
	f.Add("subject", "eq", "orders", uint8(0))
	f.Add("$.a.b[0]", "gt", "12.5", uint8(1))
	f.Add("header.x", "regex", "a(", uint8(0))
	f.Add("x", "in", `["a",1,null]`, uint8(5))
	f.Add("$.a", "exists", "", uint8(2))
	f.Add("$[", "foo", "", uint8(3))
	f.Add("", "", "", uint8(4))
	f.Fuzz(func(t *testing.T, field, op, value string, kind uint8) {
		var v any
		switch kind % 6 {
		case 0:
			v = value
		case 1:
			v = json.Number(value)
		case 2:
			v = len(value)%2 == 0
		case 3:
			v = nil
		case 4:
			v = []any{value}
		case 5:
			if json.Unmarshal([]byte(value), &v) != nil {
				v = value
			}
		}
		m, err := Compile([]Condition{{Field: field, Operator: Operator(op), Value: v}})
		if err != nil {
			if m != nil || !errors.Is(err, fault.ErrInvalidConfig) {
				t.Fatalf("bad error result: %v, %v", m, err)
			}
			return
		}
		for _, env := range []*messaging.Envelope{testEnv(), messaging.NewEnvelope(value, []byte(value)), nil} {
			in := NewInput(env)
			m.Match(&in)
		}
	})
}
