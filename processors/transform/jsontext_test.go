package transform

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gobridge-oss/gobridge/core/jsontext"
)

var texts = []string{
	"", "plain", `quote " and backslash \`, "tab\tnewline\ncr\rnul\x00bell\x07",
	"héllo wörld 😀", "bad utf8 \xff\xfe end", "cut rune \xe2\x82", "\u2028\u2029", "</script>&",
	strings.Repeat("long run of plain text ", 20),
}

// TestQuoteAndUnquote checks the string helpers against encoding/json.
func TestQuoteAndUnquote(t *testing.T) {
	for _, s := range texts {
		// encoding/json replaces each invalid byte with U+FFFD.
		enc, _ := json.Marshal(s)
		var want string
		_ = json.Unmarshal(enc, &want)
		q := appendQuoted(nil, []byte(s))
		var back string
		if err := json.Unmarshal(q, &back); err != nil {
			t.Errorf("%q: quoted form %s is not JSON: %v", s, q, err)
		} else if back != want {
			t.Errorf("%q: quoted form reads back as %q, want %q", s, back, want)
		}
		if got := string(jsontext.AppendUnquoted(nil, enc[1:len(enc)-1])); got != want {
			t.Errorf("%q: unquoted %s as %q", s, enc, got)
		}
	}
	escapes := map[string]string{
		`\ud83d\ude00`: "😀",
		`\ud83d`:       "\uFFFD",
		`\ude00\ud83d`: "\uFFFD\uFFFD",
		`\ud83dx`:      "\uFFFDx",
		`\ud83d\u0041`: "\uFFFDA",
		`\/\b\f`:       "/\b\f",
		`\u00e9\u0000`: "é\x00",
	}
	for raw, want := range escapes {
		if got := string(jsontext.AppendUnquoted(nil, []byte(raw))); got != want {
			t.Errorf("unquote %s = %q, want %q", raw, got, want)
		}
		var ref string
		if err := json.Unmarshal([]byte(`"`+raw+`"`), &ref); err != nil || ref != want {
			t.Errorf("encoding/json reads %s as %q (%v)", raw, ref, err)
		}
	}
}

func TestCompactAndSkip(t *testing.T) {
	docs := []string{
		`1`, `-1.5e3`, `"s"`, `"a \" \\"`, `true`, `null`, `[]`, `{}`,
		` { "a" : [ 1 , "x y" , { "b" : null } ] , "c\\" : "}]" } `,
		`[[[["\\\\"]]], {"k": "v \\\" ]"}]`,
	}
	for _, d := range docs {
		trimmed := strings.TrimSpace(d)
		if got := skipValid([]byte(trimmed+`,"next"`), 0); got != len(trimmed) {
			t.Errorf("skipValid(%s) stopped at %d, want %d", d, got, len(trimmed))
		}
		var want bytes.Buffer
		if err := json.Compact(&want, []byte(d)); err != nil {
			t.Fatal(err)
		}
		if got := compact(nil, []byte(d)); string(got) != want.String() {
			t.Errorf("compact(%s) = %s, want %s", d, got, want.String())
		}
	}
}
