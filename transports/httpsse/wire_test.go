package httpsse

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/messaging"
)

// TestMarshalEnvelopeRoundTrip checks that ParseBody reads back exactly
// what MarshalEnvelope wrote, for every kind of payload.
func TestMarshalEnvelopeRoundTrip(t *testing.T) {
	binary := make([]byte, 256)
	for i := range binary {
		binary[i] = byte(i)
	}
	tests := []struct {
		name    string
		payload []byte
		field   string // the JSON text expected for the payload
	}{
		{"empty", nil, `"payload":""`},
		{"compact object", []byte(`{"a":[1,2],"b":"<&>"}`), `"payload":{"a":[1,2],"b":"<&>"}`},
		{"number", []byte(`-12.5e3`), `"payload":-12.5e3`},
		{"true", []byte(`true`), `"payload":true`},
		{"spaced object stays text", []byte(`{"a": 1}`), `"payload":"{\"a\": 1}"`},
		{"json string stays text", []byte(`"quoted"`), `"payload":"\"quoted\""`},
		{"null stays text", []byte(`null`), `"payload":"null"`},
		{"text", []byte("hello\nwörld\r\n"), `"payload":"hello\nwörld\r\n"`},
		{"binary", binary, `"payload_base64":"` + "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4OTo7PD0+P0BBQkNERUZHSElKS0xNTk9QUVJTVFVWV1hZWltcXV5fYGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6e3x9fn+AgYKDhIWGh4iJiouMjY6PkJGSk5SVlpeYmZqbnJ2en6ChoqOkpaanqKmqq6ytrq+wsbKztLW2t7i5uru8vb6/wMHCw8TFxsfIycrLzM3Oz9DR0tPU1dbX2Nna29zd3t/g4eLj5OXm5+jp6uvs7e7v8PHy8/T19vf4+fr7/P3+/w==" + `"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := messaging.NewEnvelope("orders.created", tt.payload)
			env.ExpiresAt = time.Date(2030, 5, 6, 7, 8, 9, 123, time.UTC)
			env.Headers = map[string]any{"s": "v", "b": []byte("bytes"), "n": 3, "nan": math.NaN(), "nested": map[string]any{"k": []byte{0xff}}}
			data, err := MarshalEnvelope(env)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(data, []byte(tt.field)) {
				t.Errorf("JSON %s lacks %s", data, tt.field)
			}
			back, err := ParseBody(data)
			if err != nil {
				t.Fatalf("ParseBody(%s): %v", data, err)
			}
			type view struct {
				ID, Subject string
				Payload     []byte
				ExpiresAt   time.Time
				Headers     map[string]any
			}
			want := view{env.ID, env.Subject, env.Payload(), env.ExpiresAt, map[string]any{
				"s": "v", "b": "bytes", "n": json.Number("3"), "nan": "NaN", "nested": map[string]any{"k": "/w=="}}}
			got := view{back.ID, back.Subject, back.Payload(), back.ExpiresAt, back.Headers}
			if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b []byte) bool { return bytes.Equal(a, b) })); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseBodyErrors(t *testing.T) {
	tests := []struct {
		body string
		want BodyError
	}{
		{``, BodyError{Offset: -1, Msg: "empty body: expected a JSON object"}},
		{`[1]`, BodyError{Offset: 1, Msg: "expected a JSON object, got array"}},
		{`{"subject":"s"`, BodyError{Offset: 14, Msg: "truncated JSON: the body ends inside a value"}},
		{`{"subject":"s"} x`, BodyError{Offset: 16, Msg: "unexpected data after the JSON object"}},
		{`{"headers":[]}`, BodyError{Field: "headers", Offset: 12, Msg: "expected an object, got array"}},
		{`{"payload":1,"payload_base64":"AA=="}`, BodyError{Field: "payload_base64", Offset: -1, Msg: "cannot be combined with payload; send one of them"}},
		{`{"payload_base64":"A!=="}`, BodyError{Field: "payload_base64", Offset: -1, Msg: "invalid base64 at character 1"}},
		{`{"id":"a\u0000b"}`, BodyError{Field: "id", Offset: -1, Msg: "contains control characters"}},
		{`{"headers":{"":1}}`, BodyError{Field: "headers", Offset: -1, Msg: "empty header name"}},
	}
	for _, tt := range tests {
		_, err := ParseBody([]byte(tt.body))
		be, ok := err.(*BodyError)
		if !ok {
			t.Errorf("ParseBody(%s) = %v, want a *BodyError", tt.body, err)
			continue
		}
		if diff := cmp.Diff(tt.want, *be); diff != "" {
			t.Errorf("ParseBody(%s) (-want +got):\n%s", tt.body, diff)
		}
	}
}

func TestAppendJSONStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", `q"u\o`, "tab\tnl\n\x00\x1f", "ünï€😀", "bad\xffutf8", "<&>", "\u2028"} {
		want, _ := json.Marshal(s)
		var back, gotBack string
		if err := json.Unmarshal(appendJSONString(nil, s), &gotBack); err != nil {
			t.Errorf("appendJSONString(%q) is not JSON: %v", s, err)
			continue
		}
		_ = json.Unmarshal(want, &back)
		if gotBack != back {
			t.Errorf("appendJSONString(%q) decodes to %q, encoding/json's to %q", s, gotBack, back)
		}
	}
}
