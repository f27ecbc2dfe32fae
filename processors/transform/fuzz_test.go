package transform

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/google/go-cmp/cmp"
)

// FuzzTransform runs a mapping built from arbitrary text over an arbitrary
// payload, beside a fixed second mapping, and compares the result with a
// reference built on encoding/json: the same documents must be refused,
// untouched values must come through unchanged, and converted values must
// agree with their source.
func FuzzTransform(f *testing.F) {
	f.Add([]byte(`{"a":{"b":1},"b":"x"}`), "$.a.b", "out.v", "", false, false)
	f.Add([]byte(`{"a":[10,{"c":"12"}],"b":null}`), "$.a[1].c", "a.n", "int", false, false)
	f.Add([]byte(`{"n":9007199254740993,"b":true}`), "$.n", "n2", "", true, false)
	f.Add([]byte(`{"n":12345678901234567890}`), "$.n", "n", "int", false, true)
	f.Add([]byte(`{"s":"aGVsbG8="}`), "$.s", "copy.d", "base64decode", false, false)
	f.Add([]byte(`{"s":"h\u00e9\ud800"}`), "$.s", "e", "base64encode", true, false)
	f.Add([]byte(`{"x":1.5e3,"x":"2"}`), "$.x", "x.y", "float", false, false)
	f.Add([]byte(`{"copy":5,"b":0}`), "$.b", "copy.z", "bool", false, false)
	f.Add([]byte(`[1,2]`), "$[1]", "v", "string", true, false)
	f.Add([]byte(`{"a":1`), "$.a", "v", "", false, false)
	f.Fuzz(func(t *testing.T, payload []byte, source, target, conv string, drop, strict bool) {
		cfg := Config{DropUnmapped: drop, FailOnError: strict, MaxPayloadBytes: 1 << 16, Mappings: []FieldMapping{
			{Source: source, Target: target, Transform: TransformType(conv)},
			SimpleMapping("$.b", "copy.b"),
		}}
		tr, err := New(cfg)
		if err != nil {
			if !errors.Is(err, fault.ErrInvalidConfig) {
				t.Fatalf("config error is not INVALID_CONFIG: %v", err)
			}
			return
		}
		env := messaging.NewEnvelopeFromImmutablePayload("s", payload)
		err = tr.Process(context.Background(), env, func(context.Context, *messaging.Envelope) error { return nil })
		in, valid := decodeRef(payload)
		switch {
		case len(payload) > 1<<16:
			if !errors.Is(err, fault.ErrPayloadTooLarge) {
				t.Fatalf("oversized payload: err = %v", err)
			}
			return
		case !valid:
			if !errors.Is(err, fault.ErrInvalidPayload) {
				t.Fatalf("invalid JSON: err = %v", err)
			}
			return
		case err != nil && fault.ClassOf(err) != fault.ClassRejected:
			t.Fatalf("error of class %v: %v", fault.ClassOf(err), err)
		}
		_, isObj := in.(map[string]any)
		if !drop && !isObj {
			if !errors.Is(err, fault.ErrSchemaViolation) {
				t.Fatalf("non-object root: err = %v", err)
			}
			return
		}
		if err != nil {
			if !strict || !errors.Is(err, fault.ErrSchemaViolation) {
				t.Fatalf("unexpected error: %v", err)
			}
			return
		}
		out, ok := decodeRef(env.PayloadView())
		if !ok {
			t.Fatalf("output is not JSON: %q", env.PayloadView())
		}
		want := map[string]any{}
		if !drop {
			fresh, _ := decodeRef(payload) // a copy of obj to modify
			want = fresh.(map[string]any)
		}
		segs, _ := parseSource(source)
		keys, _ := parseTarget(target)
		if v, found := lookupRef(in, segs); found {
			got, present := lookupRef(out, targetSegs(keys))
			if conv == "" {
				got, present = v, true
			} else if present && !isCopy(got, in, keys) {
				checkConversion(t, TransformType(conv), v, got)
			}
			if present {
				setRef(want, keys, got)
			}
		}
		if v, found := lookupRef(in, []seg{{key: "b", idx: -1}}); found {
			setRef(want, []string{"copy", "b"}, v)
		}
		if diff := cmp.Diff(any(want), out); diff != "" {
			t.Fatalf("output %s differs from the reference (-want +got):\n%s", env.PayloadView(), diff)
		}
	})
}

// decodeRef decodes one JSON document with encoding/json, keeping numbers
// as json.Number.
func decodeRef(b []byte) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil, false
	}
	if _, err := d.Token(); err == nil || !errors.Is(err, errEOF(err)) {
		return nil, false
	}
	return v, true
}

// errEOF returns err when it is io.EOF-like end of input.
func errEOF(err error) error {
	if err != nil && err.Error() == "EOF" {
		return err
	}
	return errors.New("not EOF")
}

// lookupRef follows segs through a decoded document the way sources are
// documented to work.
func lookupRef(v any, segs []seg) (any, bool) {
	for _, s := range segs {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[s.key]; !ok {
				return nil, false
			}
		case []any:
			if s.idx < 0 || s.idx >= len(x) {
				return nil, false
			}
			v = x[s.idx]
		default:
			return nil, false
		}
	}
	return v, true
}

func targetSegs(keys []string) []seg {
	segs := make([]seg, len(keys))
	for i, k := range keys {
		segs[i] = seg{key: k, idx: -1}
	}
	return segs
}

// setRef writes v at keys, creating objects and replacing nulls on the
// way; it does nothing when a value that is not an object is in the way.
func setRef(doc map[string]any, keys []string, v any) {
	for _, k := range keys[:len(keys)-1] {
		switch next := doc[k].(type) {
		case map[string]any:
			doc = next
		case nil:
			m := map[string]any{}
			doc[k] = m
			doc = m
		default:
			return
		}
	}
	doc[keys[len(keys)-1]] = v
}

// isCopy reports whether got is just the input's own value at the target,
// left in place because the mapping was skipped.
func isCopy(got, in any, keys []string) bool {
	orig, ok := lookupRef(in, targetSegs(keys))
	return ok && cmp.Equal(orig, got)
}

// checkConversion checks that got is a plausible result of converting v.
func checkConversion(t *testing.T, conv TransformType, v, got any) {
	t.Helper()
	if v == nil {
		if got != nil {
			t.Fatalf("null became %#v", got)
		}
		return
	}
	text := func(x any) string {
		if s, ok := x.(string); ok {
			return s
		}
		b, _ := json.Marshal(x)
		var buf bytes.Buffer
		_ = json.Compact(&buf, b)
		return buf.String()
	}
	switch conv {
	case TransformString:
		s, ok := got.(string)
		if !ok || (isScalar(v) && s != text(v)) {
			t.Fatalf("string of %#v is %#v", v, got)
		}
	case TransformInt:
		n, ok := got.(json.Number)
		if _, err := strconv.ParseInt(string(n), 10, 64); !ok || err != nil {
			t.Fatalf("int of %#v is %#v", v, got)
		}
		if src, isNum := numberOf(v); isNum && src.Cmp(mustRat(string(n))) != 0 {
			t.Fatalf("int of %v is %v", v, n)
		}
	case TransformFloat:
		n, ok := got.(json.Number)
		if !ok {
			t.Fatalf("float of %#v is %#v", v, got)
		}
		if src, isNum := v.(json.Number); isNum {
			a, _ := strconv.ParseFloat(string(src), 64)
			b, _ := strconv.ParseFloat(string(n), 64)
			if a != b {
				t.Fatalf("float of %v is %v", src, n)
			}
		}
	case TransformBool:
		if _, ok := got.(bool); !ok {
			t.Fatalf("bool of %#v is %#v", v, got)
		}
	case TransformBase64Encode:
		s, _ := got.(string)
		dec, err := base64.StdEncoding.DecodeString(s)
		if err != nil || (isScalar(v) && string(dec) != strings.ToValidUTF8(text(v), "\uFFFD")) {
			t.Fatalf("base64 of %#v is %#v", v, got)
		}
	case TransformBase64Decode:
		if _, ok := got.(string); !ok {
			t.Fatalf("base64 decoding of %#v is %#v", v, got)
		}
	}
}

func isScalar(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return false
	}
	return true
}

// numberOf returns the exact value of a JSON number or numeric string.
func numberOf(v any) (*big.Rat, bool) {
	var s string
	switch x := v.(type) {
	case json.Number:
		s = string(x)
	case string:
		s = x
	default:
		return nil, false
	}
	if numberLen([]byte(s)) != len(s) || len(s) == 0 || strings.ContainsAny(s, "eE") {
		return nil, false
	}
	r, ok := new(big.Rat).SetString(s)
	return r, ok
}

func mustRat(s string) *big.Rat {
	r, _ := new(big.Rat).SetString(s)
	return r
}
