package bench

import (
	"encoding/xml"
	"io"
	"math"
	"strings"
	"testing"
)

func TestChartWriteSVG(t *testing.T) {
	c := Chart{
		Title:  "forwarding <100k> msgs",
		Groups: []string{"amqp→amqp 256B", "mqtt→amqp 256B"},
		Series: []string{"bridge", "reference"},
		Panels: []Panel{
			{Title: "msg/s", Values: [][]Bar{{{8000, 7000, 9000}, {10000, 9500, 11000}}, {{math.NaN(), 0, 0}, {5000, 5000, 5000}}}},
			{Title: "CPU µs/msg", Values: [][]Bar{{{50, 45, 55}, {30, 28, 31}}}},
		},
	}
	var b strings.Builder
	if err := c.WriteSVG(&b); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	// Well-formed XML, so browsers and GitHub render it.
	d := xml.NewDecoder(strings.NewReader(svg))
	for {
		if _, err := d.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("not well-formed: %v\n%s", err, svg)
		}
	}
	tests := []struct {
		what  string
		count int
		sub   string
	}{
		{"escaped title", 1, "forwarding &lt;100k&gt; msgs"},
		{"bars drawn (NaN skipped, missing group skipped)", 5, "<rect x=\"" + ""},
		{"bar tooltips", 5, "<title>"},
		{"whiskers for bars with a spread", 4, `stroke="#000"`},
		{"the 8k bar label", 1, ">8.0k<"},
	}
	for _, tt := range tests {
		n := strings.Count(svg, tt.sub)
		if tt.what == "bars drawn (NaN skipped, missing group skipped)" {
			n -= len(c.Series) // the legend's swatches
		}
		if n != tt.count {
			t.Errorf("%s: %d occurrences of %q, want %d", tt.what, n, tt.sub, tt.count)
		}
	}
}

func TestNiceStepAndShort(t *testing.T) {
	steps := map[float64]float64{0: 1, 0.3: 0.5, 3: 5, 12: 20, 2500: 5000, 101: 200}
	for in, want := range steps {
		if got := niceStep(in); math.Abs(got-want) > 1e-9 {
			t.Errorf("niceStep(%v) = %v, want %v", in, got, want)
		}
	}
	labels := map[float64]string{0: "0", 0.85: "0.85", 42.4: "42", 1500: "1.5k", 12345: "12k"}
	for in, want := range labels {
		if got := short(in); got != want {
			t.Errorf("short(%v) = %q, want %q", in, got, want)
		}
	}
}
