package transform

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestConversions runs every transform over every kind of JSON value. A
// want starting with "!" is the expected error reason; otherwise it is the
// expected JSON text.
func TestConversions(t *testing.T) {
	tests := []struct {
		conv TransformType
		in   string
		want string
	}{
		// No transform: the exact text.
		{TransformNone, `"x\u00e9"`, `"x\u00e9"`},
		{TransformNone, `1.50`, `1.50`},
		{TransformNone, `9007199254740993`, `9007199254740993`},
		{TransformNone, `{"a": [1, 2]}`, `{"a": [1, 2]}`},
		{TransformNone, `true`, `true`},

		// string
		{TransformString, `"abc"`, `"abc"`},
		{TransformString, `"a\"b\u00e9"`, `"a\"b\u00e9"`},
		{TransformString, `42`, `"42"`},
		{TransformString, `1.50`, `"1.50"`},
		{TransformString, `-2.5e-3`, `"-2.5e-3"`},
		{TransformString, `12345678901234567890`, `"12345678901234567890"`},
		{TransformString, `true`, `"true"`},
		{TransformString, `false`, `"false"`},
		{TransformString, `null`, `null`},
		{TransformString, `[1, "a b", {"c": "\""}]`, `"[1,\"a b\",{\"c\":\"\\\"\"}]"`},
		{TransformString, `{}`, `"{}"`},

		// int
		{TransformInt, `42`, `42`},
		{TransformInt, `-7`, `-7`},
		{TransformInt, `-0`, `0`},
		{TransformInt, `2.0`, `2`},
		{TransformInt, `1e3`, `1000`},
		{TransformInt, `1.5E1`, `15`},
		{TransformInt, `120e-1`, `12`},
		{TransformInt, `0.0e5`, `0`},
		{TransformInt, `9223372036854775807`, `9223372036854775807`},
		{TransformInt, `-9223372036854775808`, `-9223372036854775808`},
		{TransformInt, `9007199254740993`, `9007199254740993`},
		{TransformInt, `"9007199254740993"`, `9007199254740993`},
		{TransformInt, `"42"`, `42`},
		{TransformInt, `"-1e2"`, `-100`},
		{TransformInt, `true`, `1`},
		{TransformInt, `false`, `0`},
		{TransformInt, `null`, `null`},
		{TransformInt, `9223372036854775808`, `!cannot apply int: "9223372036854775808" is outside the int64 range`},
		{TransformInt, `"12345678901234567890"`, `!cannot apply int: "12345678901234567890" is outside the int64 range`},
		{TransformInt, `-9223372036854775809`, `!cannot apply int: "-9223372036854775809" is outside the int64 range`},
		{TransformInt, `1e19`, `!cannot apply int: "1e19" is outside the int64 range`},
		{TransformInt, `1e999999999999`, `!cannot apply int: "1e999999999999" is outside the int64 range`},
		{TransformInt, `2.5`, `!cannot apply int: "2.5" has a fractional part`},
		{TransformInt, `1e-999999999999`, `!cannot apply int: "1e-999999999999" has a fractional part`},
		{TransformInt, `"abc"`, `!cannot apply int: string "abc" is not a number`},
		{TransformInt, `" 42"`, `!cannot apply int: string " 42" is not a number`},
		{TransformInt, `""`, `!cannot apply int: string "" is not a number`},
		{TransformInt, `"0x10"`, `!cannot apply int: string "0x10" is not a number`},
		{TransformInt, `[1]`, `!cannot apply int: value is an array, not a number, string or boolean`},
		{TransformInt, `{}`, `!cannot apply int: value is an object, not a number, string or boolean`},

		// float
		{TransformFloat, `42`, `42`},
		{TransformFloat, `1.50`, `1.5`},
		{TransformFloat, `"3.25"`, `3.25`},
		{TransformFloat, `"-1e-7"`, `-1e-7`},
		{TransformFloat, `1e21`, `1e+21`},
		{TransformFloat, `123456789.125`, `123456789.125`},
		{TransformFloat, `9007199254740993`, `9007199254740992`},
		{TransformFloat, `1e-400`, `0`},
		{TransformFloat, `true`, `1`},
		{TransformFloat, `null`, `null`},
		{TransformFloat, `1e400`, `!cannot apply float: "1e400" is outside the float64 range`},
		{TransformFloat, `"NaN"`, `!cannot apply float: string "NaN" is not a number`},
		{TransformFloat, `"Inf"`, `!cannot apply float: string "Inf" is not a number`},
		{TransformFloat, `"1_000"`, `!cannot apply float: string "1_000" is not a number`},
		{TransformFloat, `{"a":1}`, `!cannot apply float: value is an object, not a number, string or boolean`},

		// bool
		{TransformBool, `true`, `true`},
		{TransformBool, `false`, `false`},
		{TransformBool, `"true"`, `true`},
		{TransformBool, `"FALSE"`, `false`},
		{TransformBool, `"1"`, `true`},
		{TransformBool, `"f"`, `false`},
		{TransformBool, `1`, `true`},
		{TransformBool, `0`, `false`},
		{TransformBool, `1.0`, `true`},
		{TransformBool, `-0.0`, `false`},
		{TransformBool, `null`, `null`},
		{TransformBool, `2`, `!cannot apply bool: number "2" is neither 0 nor 1`},
		{TransformBool, `-1`, `!cannot apply bool: number "-1" is neither 0 nor 1`},
		{TransformBool, `"yes"`, `!cannot apply bool: string "yes" is not a boolean`},
		{TransformBool, `[]`, `!cannot apply bool: value is an array, not a number, string or boolean`},

		// base64encode
		{TransformBase64Encode, `"hello"`, `"aGVsbG8="`},
		{TransformBase64Encode, `"h\u00e9"`, `"aMOp"`},
		{TransformBase64Encode, `""`, `""`},
		{TransformBase64Encode, `42`, `"NDI="`},
		{TransformBase64Encode, `true`, `"dHJ1ZQ=="`},
		{TransformBase64Encode, `{"a": 1}`, `"eyJhIjoxfQ=="`},
		{TransformBase64Encode, `null`, `null`},

		// base64decode
		{TransformBase64Decode, `"aGVsbG8="`, `"hello"`},
		{TransformBase64Decode, `"aGVsbG8"`, `"hello"`},
		{TransformBase64Decode, `"aMOp"`, `"hé"`},
		{TransformBase64Decode, `"PD4_"`, `"<>?"`},
		{TransformBase64Decode, `"IjxcbiI="`, `"\"<\\n\""`},
		{TransformBase64Decode, `""`, `""`},
		{TransformBase64Decode, `null`, `null`},
		{TransformBase64Decode, `"not base64!"`, `!cannot apply base64decode: value is not valid base64`},
		{TransformBase64Decode, `"/w=="`, `!cannot apply base64decode: value decodes to bytes that are not UTF-8 text`},
		{TransformBase64Decode, `7`, `!cannot apply base64decode: value is a number, not a string`},
		{TransformBase64Decode, `{}`, `!cannot apply base64decode: value is an object, not a string`},
	}
	got := map[string]string{}
	want := map[string]string{}
	for _, tt := range tests {
		key := fmt.Sprintf("%s(%s)", tt.conv, tt.in)
		want[key] = tt.want
		tr := mustNew(t, Config{Name: "c", DropUnmapped: true, FailOnError: true, Mappings: []FieldMapping{
			{Source: "$.v", Target: "v", Transform: tt.conv},
		}})
		o := process(t, tr, `{"v":`+tt.in+`}`)
		switch {
		case o.Code != "":
			got[key] = "!" + strings.TrimPrefix(o.Err, `SCHEMA_VIOLATION: transform "c": mappings[0] ($.v -> v): `)
		default:
			got[key] = strings.TrimSuffix(strings.TrimPrefix(o.Payload, `{"v":`), `}`)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("conversions (-want +got):\n%s", diff)
	}
}

func TestFailOnError(t *testing.T) {
	mappings := []FieldMapping{
		TransformedMapping("$.a", "a", TransformInt),
		TransformedMapping("$.b", "b", TransformInt),
		SimpleMapping("$.c", "c"),
	}
	payload := `{"a":"1","b":"x","c":3}`
	lenient := process(t, mustNew(t, Config{Mappings: mappings}), payload)
	if diff := cmp.Diff(ok(`{"a":1,"b":"x","c":3}`), lenient); diff != "" {
		t.Errorf("lenient (-want +got):\n%s", diff)
	}
	lenientDrop := process(t, mustNew(t, Config{DropUnmapped: true, Mappings: mappings}), payload)
	if diff := cmp.Diff(ok(`{"a":1,"c":3}`), lenientDrop); diff != "" {
		t.Errorf("lenient, drop unmapped (-want +got):\n%s", diff)
	}
	strict := process(t, mustNew(t, Config{Name: "s", FailOnError: true, Mappings: mappings}), payload)
	want := failed(payload, "SCHEMA_VIOLATION", `SCHEMA_VIOLATION: transform "s": mappings[1] ($.b -> b): cannot apply int: string "x" is not a number`)
	if diff := cmp.Diff(want, strict); diff != "" {
		t.Errorf("strict (-want +got):\n%s", diff)
	}
	required := mappings
	required[1].Required = true
	req := process(t, mustNew(t, Config{Name: "s", Mappings: required}), payload)
	if diff := cmp.Diff(want, req); diff != "" {
		t.Errorf("required (-want +got):\n%s", diff)
	}
}
