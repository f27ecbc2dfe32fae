package httpsse

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// slowWire decodes body the way the fallback path does.
func slowWire(body []byte) (wireEnvelope, error) {
	var w wireEnvelope
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	err := dec.Decode(&w)
	if err == nil && len(bytes.TrimSpace(body[dec.InputOffset():])) > 0 {
		err = errTrailing
	}
	return w, err
}

var errTrailing = &BodyError{Msg: "trailing data"}

func TestFastParse(t *testing.T) {
	tests := []struct {
		name string
		body string
		ok   bool
	}{
		{"usual", `{"subject":"a.b","payload":{"n":[1,2,{"x":"}"}]},"headers":{"k":"v"}}`, true},
		{"spaced", " {\n \"id\" : \"m1\" ,\t\"payload\": 12.5e3 , \"expires_at\":\"2030-01-02T15:04:05Z\"}\r\n", true},
		{"string payload with escapes", `{"subject":"s","payload":"a\"b\\n"}`, true},
		{"empty object", `{}`, true},
		{"empty headers", `{"headers":{}}`, true},
		{"utf8 subject", `{"subject":"prüfung"}`, true},
		{"escaped subject", `{"subject":"a\u0041"}`, false},
		{"capitalised field", `{"Subject":"s"}`, false},
		{"unknown field", `{"subj":"s"}`, false},
		{"duplicate field", `{"subject":"a","subject":"b"}`, false},
		{"number header", `{"headers":{"n":1}}`, false},
		{"duplicate header", `{"headers":{"k":"1","k":"2"}}`, false},
		{"null subject", `{"subject":null}`, false},
		{"base64", `{"payload_base64":"AA=="}`, false},
		{"invalid payload", `{"payload":{"a":}}`, false},
		{"trailing data", `{"subject":"s"} x`, false},
		{"missing brace", `{"subject":"s"`, false},
		{"invalid utf8", "{\"subject\":\"\xff\"}", false},
		{"array", `[1]`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var fast wireEnvelope
			if got := fastParse([]byte(tc.body), &fast); got != tc.ok {
				t.Fatalf("fastParse = %v, want %v", got, tc.ok)
			}
			if !tc.ok {
				return
			}
			slow, err := slowWire([]byte(tc.body))
			if err != nil {
				t.Fatalf("encoding/json refused what the fast path took: %v", err)
			}
			if diff := cmp.Diff(slow, fast); diff != "" {
				t.Errorf("fast path differs from encoding/json (-slow +fast):\n%s", diff)
			}
		})
	}
}

// FuzzFastParseAgrees checks that whatever the fast path accepts,
// encoding/json accepts too and decodes to the same fields.
func FuzzFastParseAgrees(f *testing.F) {
	f.Add([]byte(`{"subject":"orders.created","payload":{"n":1},"headers":{"k":"v"}}`))
	f.Add([]byte(`{"id":"m1","payload":"x\"y","expires_at":"2030-01-02T15:04:05Z"}`))
	f.Add([]byte(`{"payload":[1,{"a":"]"},true,null]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var fast wireEnvelope
		if !fastParse(body, &fast) {
			return
		}
		slow, err := slowWire(body)
		if err != nil {
			t.Fatalf("encoding/json refused %q that the fast path took: %v", body, err)
		}
		if diff := cmp.Diff(slow, fast); diff != "" {
			t.Fatalf("fast path differs on %q (-slow +fast):\n%s", body, diff)
		}
	})
}
