package transform

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

const userPayload = `{"user": {"name": "ann", "age": "42", "tags": ["a", "b"]}, "metadata": {"token": "s3cret"}, "id": 7}`

func TestMappings(t *testing.T) {
	sm, tm := SimpleMapping, TransformedMapping
	tests := []struct {
		name    string
		cfg     Config
		payload string
		want    outcome
	}{
		// The example of the specification: only mapped fields remain.
		{"spec example", Config{DropUnmapped: true, Mappings: []FieldMapping{
			sm("$.user.name", "username"),
			tm("$.user.age", "userAge", TransformInt),
			{Source: "$.metadata.token", Target: "auth.token", Transform: TransformBase64Encode, Required: true},
		}}, userPayload, ok(`{"username":"ann","userAge":42,"auth":{"token":"czNjcmV0"}}`)},

		// DropUnmapped false: the input stays, targets go on top, new
		// members follow the existing ones, existing ones keep their place.
		{"keep unmapped", Config{Mappings: []FieldMapping{sm("$.user.name", "username")}},
			userPayload, ok(`{"user": {"name": "ann", "age": "42", "tags": ["a", "b"]},"metadata": {"token": "s3cret"},"id": 7,"username":"ann"}`)},
		{"replace in place", Config{Mappings: []FieldMapping{tm("$.id", "id", TransformString)}},
			`{"id": 7, "x": 1}`, ok(`{"id":"7","x": 1}`)},
		{"merge into existing object", Config{Mappings: []FieldMapping{tm("$.user.age", "user.age", TransformInt), sm("$.id", "user.id")}},
			userPayload, ok(`{"user":{"name": "ann","age":42,"tags": ["a", "b"],"id":7},"metadata": {"token": "s3cret"},"id": 7}`)},
		{"create parents", Config{Mappings: []FieldMapping{sm("$.id", "a.b.c"), sm("$.user.name", "a.b.d"), sm("$.user.age", "a.e")}},
			`{"id":1,"user":{"name":"n","age":2}}`, ok(`{"id":1,"user":{"name":"n","age":2},"a":{"b":{"c":1,"d":"n"},"e":2}}`)},
		{"empty object input", Config{Mappings: []FieldMapping{{Source: "$.x", Target: "y", DefaultValue: "d"}}},
			` { } `, ok(`{"y":"d"}`)},
		{"whole document", Config{DropUnmapped: true, Mappings: []FieldMapping{sm("$", "wrapped.doc")}},
			` [1, {"a": 2}] `, ok(`{"wrapped":{"doc":[1, {"a": 2}]}}`)},
		{"targets in declaration order", Config{DropUnmapped: true, Mappings: []FieldMapping{sm("$.b", "z"), sm("$.a", "y.q"), sm("$.c", "y.p")}},
			`{"a":1,"b":2,"c":3}`, ok(`{"z":2,"y":{"q":1,"p":3}}`)},
		{"sources read the input, not the output", Config{Mappings: []FieldMapping{tm("$.a", "a", TransformString), sm("$.a", "b")}},
			`{"a":1}`, ok(`{"a":"1","b":1}`)},

		// Sources: arrays and odd keys.
		{"array index", Config{DropUnmapped: true, Mappings: []FieldMapping{sm("$.user.tags[1]", "t1"), sm("$.user.tags.0", "t0"), sm("$.user.tags[2]", "t2")}},
			userPayload, ok(`{"t1":"b","t0":"a"}`)},
		{"index into objects of an array", Config{DropUnmapped: true, Mappings: []FieldMapping{sm("$.l[1].sku", "sku"), sm("$[0]", "root0")}},
			`{"l":[{"sku":"A"},{"sku":"B"}]}`, ok(`{"sku":"B"}`)},
		{"digit member name", Config{DropUnmapped: true, Mappings: []FieldMapping{sm("$.m.0", "a"), sm("$.m[1]", "b")}},
			`{"m":{"0":"zero","1":"one"}}`, ok(`{"a":"zero","b":"one"}`)},
		{"root array", Config{DropUnmapped: true, Mappings: []FieldMapping{sm("$[1].x", "x")}},
			`[0,{"x":true}]`, ok(`{"x":true}`)},
		{"escaped member names", Config{Mappings: []FieldMapping{sm("$.user.name", "user.nick")}},
			`{"us\u0065r":{"n\u0061me":"é"}}`, ok(`{"user":{"n\u0061me":"é","nick":"é"}}`)},
		{"target names are escaped", Config{DropUnmapped: true, Mappings: []FieldMapping{sm("$.a", `say "hi"\now.é`)}},
			`{"a":1}`, ok(`{"say \"hi\"\\now":{"é":1}}`)},
		{"path through a scalar is missing", Config{DropUnmapped: true, Mappings: []FieldMapping{{Source: "$.a.b", Target: "x", DefaultValue: "none"}}},
			`{"a":"text"}`, ok(`{"x":"none"}`)},

		// Missing sources, defaults and Required.
		{"missing source is skipped", Config{Mappings: []FieldMapping{sm("$.nope", "x"), sm("$.id", "y")}},
			`{"id":1}`, ok(`{"id":1,"y":1}`)},
		{"missing source keeps the existing target", Config{Mappings: []FieldMapping{sm("$.nope", "id")}},
			`{"id":1}`, ok(`{"id":1}`)},
		{"default", Config{DropUnmapped: true, Mappings: []FieldMapping{
			{Source: "$.nope", Target: "n", DefaultValue: 0},
			{Source: "$.nope", Target: "s", DefaultValue: "x<y"},
			{Source: "$.nope", Target: "o", DefaultValue: map[string]any{"k": []any{true, nil}}},
			{Source: "$.nope", Target: "i", DefaultValue: "12", Transform: TransformInt},
			{Source: "$.id", Target: "present", DefaultValue: 99},
		}}, `{"id":1}`, ok(`{"n":0,"s":"x\u003cy","o":{"k":[true,null]},"i":"12","present":1}`)},
		{"required with default", Config{DropUnmapped: true, Mappings: []FieldMapping{{Source: "$.nope", Target: "n", DefaultValue: false, Required: true}}},
			`{}`, ok(`{"n":false}`)},
		{"required missing", Config{Name: "t", Mappings: []FieldMapping{sm("$.id", "x"), {Source: "$.user.email", Target: "email", Required: true}}},
			userPayload, failed(userPayload, "SCHEMA_VIOLATION",
				`SCHEMA_VIOLATION: transform "t": mappings[1] ($.user.email -> email): source not found and no default`)},
		{"required present", Config{DropUnmapped: true, Mappings: []FieldMapping{{Source: "$.id", Target: "x", Required: true}}},
			userPayload, ok(`{"x":7}`)},
		{"nothing mapped", Config{DropUnmapped: true, Mappings: []FieldMapping{sm("$.nope", "a.b")}},
			`{"x":1}`, ok(`{}`)},

		// Null.
		{"null stays null", Config{DropUnmapped: true, Mappings: []FieldMapping{
			tm("$.n", "a", TransformInt), tm("$.n", "b", TransformBase64Decode), tm("$.n", "c", TransformString), {Source: "$.n", Target: "d", DefaultValue: 1},
		}}, `{"n":null}`, ok(`{"a":null,"b":null,"c":null,"d":null}`)},
		{"null parent becomes an object", Config{Mappings: []FieldMapping{sm("$.id", "meta.id")}},
			`{"meta":null,"id":1}`, ok(`{"meta":{"id":1},"id":1}`)},

		// Blocked targets.
		{"blocked target skipped", Config{Mappings: []FieldMapping{sm("$.id", "meta.id"), sm("$.id", "copy")}},
			`{"meta":"text","id":1}`, ok(`{"meta":"text","id":1,"copy":1}`)},
		{"blocked target by array", Config{Mappings: []FieldMapping{sm("$.id", "meta.x.id")}},
			`{"meta":{"x":[1]},"id":1}`, ok(`{"meta":{"x":[1]},"id":1}`)},
		{"blocked target fails", Config{Name: "t", FailOnError: true, Mappings: []FieldMapping{sm("$.id", "meta.id")}},
			`{"meta":5,"id":1}`, failed(`{"meta":5,"id":1}`, "SCHEMA_VIOLATION",
				`SCHEMA_VIOLATION: transform "t": mappings[0] ($.id -> meta.id): target is blocked by a number where an object is needed`)},
		{"blocked required target fails", Config{Name: "t", Mappings: []FieldMapping{sm("$.id", "a.x"), {Source: "$.id", Target: "meta.id", Required: true}}},
			`{"meta":[],"id":1}`, failed(`{"meta":[],"id":1}`, "SCHEMA_VIOLATION",
				`SCHEMA_VIOLATION: transform "t": mappings[1] ($.id -> meta.id): target is blocked by an array where an object is needed`)},
		{"blocked target without value is fine", Config{FailOnError: true, Mappings: []FieldMapping{sm("$.nope", "meta.id")}},
			`{"meta":5}`, ok(`{"meta":5}`)},

		// Repeated member names: the last occurrence counts.
		{"duplicate source", Config{DropUnmapped: true, Mappings: []FieldMapping{sm("$.a.b", "x")}},
			`{"a":{"b":1},"a":{"c":2}}`, ok(`{}`)},
		{"duplicate source last wins", Config{DropUnmapped: true, Mappings: []FieldMapping{sm("$.a", "x")}},
			`{"a":1,"a":2}`, ok(`{"x":2}`)},
		{"duplicate target collapses", Config{Mappings: []FieldMapping{tm("$.a", "a", TransformString)}},
			`{"a":1,"b":0,"a":2}`, ok(`{"b":0,"a":"2"}`)},
		{"duplicate parent merges the last", Config{Mappings: []FieldMapping{sm("$.v", "p.v")}},
			`{"p":{"x":1},"v":3,"p":{"y":2}}`, ok(`{"v":3,"p":{"y":2,"v":3}}`)},
		{"unrelated duplicates stay", Config{Mappings: []FieldMapping{sm("$.v", "w")}},
			`{"d":1,"v":3,"d":2}`, ok(`{"d":1,"v":3,"d":2,"w":3}`)},

		// Precision.
		{"big integers are copied exactly", Config{DropUnmapped: true, Mappings: []FieldMapping{sm("$.n", "n"), sm("$.f", "f"), sm("$.e", "e")}},
			`{"n":9007199254740993,"f":0.1000000000000000055511151231257827,"e":-1.5E+300}`,
			ok(`{"n":9007199254740993,"f":0.1000000000000000055511151231257827,"e":-1.5E+300}`)},
		{"big integers kept beside mappings", Config{Mappings: []FieldMapping{sm("$.n", "m")}},
			`{"n":123456789012345678901234567890}`, ok(`{"n":123456789012345678901234567890,"m":123456789012345678901234567890}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := process(t, mustNew(t, tt.cfg), tt.payload)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("outcome (-want +got):\n%s", diff)
			}
		})
	}
}
