package sqs

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMetaMarshalWritesWhatEncodingJSONWrites checks the direct encoding
// of the metadata attribute against encoding/json, byte for byte, so that
// readers (this transport's earlier versions among them) see no change.
func TestMetaMarshalWritesWhatEncodingJSONWrites(t *testing.T) {
	tests := []struct {
		name string
		m    meta
	}{
		{"empty", meta{}},
		{"usual", meta{Subject: "orders.created", ID: "01JEXAMPLE0000000000000000", CreatedAt: 1733320000123456789}},
		{"all plain fields", meta{Subject: "s", ID: "i", CreatedAt: -1, ExpiresAt: 42, Base64: true}},
		{"subject bytes", meta{SubjectBytes: []byte{0xff, 0, 1}, ID: "x"}},
		{"escapes", meta{Subject: "a\"b\\c\n\r\t\b\f\x00\x1f<>&\u2028\u2029é€😀", ID: "</script>"}},
		{"invalid UTF-8 ID", meta{ID: "a\xffb"}},
		{"headers", meta{Subject: "s", Headers: map[string]any{"k": "v", "n": 1.5}}},
		{"raw headers", meta{Raw: []rawHeader{{Name: []byte("k"), Value: []byte{0xff}, Bytes: true}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := json.Marshal(&tt.m)
			if err != nil {
				t.Fatal(err)
			}
			got, err := tt.m.marshal()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("(-encoding/json +marshal):\n%s", diff)
			}
		})
	}
}

// FuzzMetaMarshal compares the direct encoding with encoding/json for
// arbitrary subjects and IDs.
func FuzzMetaMarshal(f *testing.F) {
	f.Add("orders.created", "id-1", int64(1), int64(0), false, []byte(nil))
	f.Add("<\u2028>\x7f\x00", "\"\\", int64(-5), int64(7), true, []byte{1, 2})
	f.Fuzz(func(t *testing.T, subject, id string, c, e int64, b64 bool, sb []byte) {
		m := meta{Subject: subject, ID: id, CreatedAt: c, ExpiresAt: e, Base64: b64, SubjectBytes: sb}
		want, err := json.Marshal(&m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := m.marshal()
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("marshal %q, encoding/json %q", got, want)
		}
	})
}
