package jsontext

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAppendUnquotedMatchesEncodingJSON decodes string literals both ways.
func TestAppendUnquotedMatchesEncodingJSON(t *testing.T) {
	for _, lit := range []string{
		`"plain"`, `""`, `"tab\tnew\nline"`, `"\"quoted\" \\ \/"`, `"\b\f\r"`,
		`"\u00e9t\u00C9"`, `"\ud83d\ude00"`, `"lone \ud83d here"`, `"lone \ude00 low"`,
		`"\ud83d\u0041"`, "\"bad \xff byte\"", `"prüfung"`,
	} {
		var want string
		if err := json.Unmarshal([]byte(lit), &want); err != nil {
			t.Fatalf("%s: %v", lit, err)
		}
		got := string(AppendUnquoted([]byte("x"), []byte(lit[1:len(lit)-1])))
		if diff := cmp.Diff("x"+want, got); diff != "" {
			t.Errorf("%s (-encoding/json +AppendUnquoted):\n%s", lit, diff)
		}
	}
}

func TestHex4(t *testing.T) {
	tests := map[string]rune{"0041": 'A', "00e9": 0xe9, "FFFF": 0xffff, "d83D": 0xd83d, "00g0": -1, "+123": -1}
	for in, want := range tests {
		if got := Hex4([]byte(in)); got != want {
			t.Errorf("Hex4(%q) = %d, want %d", in, got, want)
		}
	}
}
