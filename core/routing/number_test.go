package routing

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"
)

func TestParseNumSyntax(t *testing.T) {
	valid := []string{"0", "-0", "1", "-1", "10", "0.5", "-0.05", "1e3", "1E+3", "1e-3", "12.340e2", "0e0", "123456789012345678901234567890"}
	invalid := []string{"", "-", "+1", "01", "1.", ".5", "1e", "1e+", "0x10", "1 ", " 1", "NaN", "Inf", "1.2.3", "--1"}
	for _, s := range valid {
		if _, ok := parseNum(s); !ok {
			t.Errorf("%q rejected", s)
		}
	}
	for _, s := range invalid {
		if _, ok := parseNum(s); ok {
			t.Errorf("%q accepted", s)
		}
	}
}

func TestCmpNumExact(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"9007199254740993", "9007199254740992", 1},
		{"9007199254740993", "9007199254740993.0", 0},
		{"1.5e3", "1500", 0},
		{"0.1", "1e-1", 0},
		{"-0", "0", 0},
		{"-0.0", "0e5", 0},
		{"-1", "1", -1},
		{"-2", "-1", -1},
		{"100", "99.999", 1},
		{"0.001", "0.01", -1},
		{"12.340", "12.34", 0},
		{"1e400", "1e399", 1},
		{"-1e400", "1", -1},
		{"123456789012345678901234567891", "123456789012345678901234567890", 1},
	}
	for _, c := range cases {
		av, _ := parseNum(c.a)
		bv, _ := parseNum(c.b)
		if got := cmpNum(c.a, av, []byte(c.b), bv); got != c.want {
			t.Errorf("cmp(%s, %s) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := cmpNum(c.b, bv, c.a, av); got != -c.want {
			t.Errorf("cmp(%s, %s) = %d, want %d", c.b, c.a, got, -c.want)
		}
	}
}

// TestCmpNumMatchesBigRat checks the comparison on random literals against
// exact rational arithmetic.
func TestCmpNumMatchesBigRat(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	lit := func() string {
		s := ""
		if rng.IntN(2) == 0 {
			s = "-"
		}
		if rng.IntN(4) == 0 {
			s += "0"
		} else {
			s += fmt.Sprint(1 + rng.IntN(9))
			for range rng.IntN(4) {
				s += fmt.Sprint(rng.IntN(10))
			}
		}
		if rng.IntN(2) == 0 {
			s += "."
			for range 1 + rng.IntN(4) {
				s += fmt.Sprint(rng.IntN(10))
			}
		}
		if rng.IntN(2) == 0 {
			s += fmt.Sprintf("e%d", rng.IntN(9)-4)
		}
		return s
	}
	for range 20000 {
		a, b := lit(), lit()
		av, ok1 := parseNum(a)
		bv, ok2 := parseNum(b)
		if !ok1 || !ok2 {
			t.Fatalf("generated invalid literal %q or %q", a, b)
		}
		ra, _ := new(big.Rat).SetString(a)
		rb, _ := new(big.Rat).SetString(b)
		if got, want := cmpNum(a, av, b, bv), ra.Cmp(rb); got != want {
			t.Fatalf("cmp(%s, %s) = %d, want %d", a, b, got, want)
		}
		if av.integral() != ra.IsInt() {
			t.Fatalf("integral(%s) = %v", a, av.integral())
		}
	}
}

func TestGoNumFormat(t *testing.T) {
	cases := map[any]string{
		int8(-5): "-5", uint16(7): "7", int64(-9007199254740993): "-9007199254740993",
		uint64(18446744073709551615): "18446744073709551615", 0.1: "0.1", float32(0.1): "0.1", 1e21: "1e+21",
	}
	for v, want := range cases {
		g, ok := toGoNum(v)
		if !ok {
			t.Fatalf("%T not numeric", v)
		}
		var buf numBuf
		lit, _, ok := g.format(&buf)
		if !ok || string(lit) != want {
			t.Errorf("%T(%v) -> %q, want %q", v, v, lit, want)
		}
	}
	if _, ok := toGoNum("1"); ok {
		t.Error("string treated as a Go number")
	}
}
