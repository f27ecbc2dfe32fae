package routing

import (
	"math"

	"github.com/gobridge-oss/gobridge/core/messaging"
)

// testPayload exercises nested objects, arrays, escapes, numbers of every
// shape, null and booleans.
const testPayload = `{
 "order": {"id": "o-1", "total": 99.5, "qty": 3, "tags": ["a", "b"],
           "lines": [{"sku": "X1", "n": 2}, {"sku": "Y2", "n": 1}]},
 "big": 9007199254740993, "neg": -12.5, "zero": -0.0, "exp": 1.5e3,
 "flag": true, "off": false, "nothing": null,
 "esc": "caf\u00e9 \ud83d\ude00 \"q\"\\/\n", "text": "hello world", "num_str": "42", "empty": "",
 "obj": {"b": 2, "a": [1, "x"]}, "arr": [1, "two", null, true, {"x": 1}],
 "0": "zero-key", "dot": {"1": "one"}, "u\u0041": "escaped-key"
}`

func testEnv() *messaging.Envelope {
	env := messaging.NewEnvelope("orders.created.eu", []byte(testPayload))
	env.Headers = map[string]any{
		"x-tenant":   "acme",
		"x-priority": "7",
		"x-count":    42,
		"x-float":    2.5,
		"x-bool":     true,
		"x-bytes":    []byte("blob-data"),
		"x-nil":      nil,
		"x-list":     []any{"a", 1},
		"x-strs":     []string{"a", "b"},
		"x-map":      map[string]any{"k": "v"},
		"x-smap":     map[string]string{"k": "v"},
		"x-big":      uint64(math.MaxUint64),
		"x-int64":    int64(9007199254740993),
		"x-nan":      math.NaN(),
		"x-inf":      math.Inf(1),
		"x-f32":      float32(0.1),
		"x-struct":   struct{ A int }{1},
		"x-numstr":   "1e2",
		"subject":    "header-named-subject",
	}
	return env
}

// errorTexts flattens a joined error into its messages.
func errorTexts(err error) []string {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []string
		for _, e := range j.Unwrap() {
			out = append(out, errorTexts(e)...)
		}
		return out
	}
	return []string{err.Error()}
}

// matchOne compiles a single condition and evaluates it on env.
func matchOne(env *messaging.Envelope, c Condition) (bool, error) {
	m, err := Compile([]Condition{c})
	if err != nil {
		return false, err
	}
	in := NewInput(env)
	return m.Match(&in), nil
}
