package bench

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"
)

// Chart is a set of grouped bar charts drawn side by side: one panel per
// metric, one group of bars per matrix cell, one bar per series (bridge,
// reference, ...). Each bar shows a median with a whisker from the lowest
// to the highest run.
type Chart struct {
	Title  string
	Groups []string // matrix cells, the x axis of every panel
	Series []string // bars within a group
	Panels []Panel
}

// Panel is one metric of a Chart.
type Panel struct {
	Title string
	// Values[g][s] is group g, series s; a NaN median draws no bar.
	Values [][]Bar
}

// Bar is one bar: the median and the spread of the runs behind it.
type Bar struct{ Median, Lo, Hi float64 }

// palette holds the series colours (cycled).
var palette = [...]string{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"}

const (
	panelW, panelH = 360, 260
	padL, padR     = 52, 12
	padT, padB     = 30, 40
	legendH        = 24
)

// WriteSVG draws c as a standalone SVG document.
func (c Chart) WriteSVG(w io.Writer) error {
	var b strings.Builder
	width := max(len(c.Panels), 1) * panelW
	height := panelH + 40 + legendH
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n",
		width, height, width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%d" y="20" font-size="14" text-anchor="middle">%s</text>`+"\n", width/2, esc(c.Title))
	for i, s := range c.Series {
		x := 10 + i*150
		fmt.Fprintf(&b, `<rect x="%d" y="30" width="12" height="12" fill="%s"/><text x="%d" y="40">%s</text>`+"\n",
			x, palette[i%len(palette)], x+16, esc(s))
	}
	for i, p := range c.Panels {
		c.panel(&b, p, i*panelW, 40+legendH)
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func (c Chart) panel(b *strings.Builder, p Panel, x0, y0 int) {
	plotW, plotH := panelW-padL-padR, panelH-padT-padB
	top := 0.0
	for _, g := range p.Values {
		for _, v := range g {
			for _, x := range []float64{v.Median, v.Hi} {
				if !math.IsNaN(x) && x > top {
					top = x
				}
			}
		}
	}
	step := niceStep(top / 4)
	top = step * math.Ceil(top/step)
	if top == 0 {
		top, step = 1, 0.25
	}
	fmt.Fprintf(b, `<g transform="translate(%d,%d)">`+"\n", x0, y0)
	fmt.Fprintf(b, `<text x="%d" y="16" font-size="12" text-anchor="middle">%s</text>`+"\n", panelW/2, esc(p.Title))
	ox, oy := padL, padT+plotH
	for v := 0.0; v <= top+step/2; v += step {
		y := float64(oy) - v/top*float64(plotH)
		fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/><text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n",
			ox, ox+plotW, y, y, ox-4, y+4, short(v))
	}
	fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#333"/>`+"\n", ox, ox+plotW, oy, oy)
	ng, ns := max(len(c.Groups), 1), max(len(c.Series), 1)
	gw := float64(plotW) / float64(ng)
	bw := gw * 0.8 / float64(ns)
	for g, label := range c.Groups {
		gx := float64(ox) + float64(g)*gw + gw*0.1
		for s := range c.Series {
			if g >= len(p.Values) || s >= len(p.Values[g]) || math.IsNaN(p.Values[g][s].Median) {
				continue
			}
			v := p.Values[g][s]
			x := gx + float64(s)*bw
			h := v.Median / top * float64(plotH)
			fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s: %s</title></rect>`+"\n",
				x, float64(oy)-h, bw-1, h, palette[s%len(palette)], esc(label), esc(c.Series[s]), short(v.Median))
			if !math.IsNaN(v.Lo) && !math.IsNaN(v.Hi) && v.Hi > v.Lo {
				cx := x + (bw-1)/2
				fmt.Fprintf(b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#000"/>`+"\n",
					cx, cx, float64(oy)-v.Lo/top*float64(plotH), float64(oy)-v.Hi/top*float64(plotH))
			}
			fmt.Fprintf(b, `<text x="%.1f" y="%.1f" font-size="9" text-anchor="middle">%s</text>`+"\n",
				x+(bw-1)/2, float64(oy)-h-3, short(v.Median))
		}
		// The label under its group, centred, broken at the first space
		// ("amqp-amqp" / "256B w500") so that neighbours do not overlap.
		first, rest, _ := strings.Cut(label, " ")
		cx := float64(ox) + (float64(g)+0.5)*gw
		fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", cx, oy+14, esc(first))
		if rest != "" {
			fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle" fill="#555">%s</text>`+"\n", cx, oy+27, esc(rest))
		}
	}
	b.WriteString("</g>\n")
}

// niceStep rounds x up to 1, 2 or 5 times a power of ten.
func niceStep(x float64) float64 {
	if x <= 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= x {
			return m * p
		}
	}
	return 10 * p
}

// short formats a value for an axis or a bar label: 12k, 1.5k, 42, 0.8.
func short(v float64) string {
	switch a := math.Abs(v); {
	case a >= 10000:
		return fmt.Sprintf("%.0fk", v/1000)
	case a >= 1000:
		return fmt.Sprintf("%.1fk", v/1000)
	case a >= 10 || a == 0:
		return fmt.Sprintf("%.0f", v)
	default:
		return fmt.Sprintf("%.2g", v)
	}
}

func esc(s string) string { return html.EscapeString(s) }
