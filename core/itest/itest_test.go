package itest

import "testing"

func TestRequired(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want bool
	}{
		{"", false}, {"0", false}, {"false", false}, {"FALSE", false}, {" ", false},
		{"1", true}, {"yes", true}, {"true", true},
	} {
		t.Setenv(EnvRequire, tc.v)
		if got := Required(); got != tc.want {
			t.Errorf("%s=%q: Required() = %v, want %v", EnvRequire, tc.v, got, tc.want)
		}
	}
}
