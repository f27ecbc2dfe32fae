package main

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/gobridge-oss/gobridge/tools/bench"
)

// metric is one column of the summary: how to read it from a result and
// whether lower is better (for the ratio's reading).
type metric struct {
	title string
	unit  string
	get   func(result) float64
}

var metrics = []metric{
	{"throughput", "msg/s", func(r result) float64 { return r.Rate }},
	{"own CPU", "µs/msg", func(r result) float64 { return r.CPUus }},
	{"peak RSS", "MB", func(r result) float64 { return r.RSSMB }},
	{"RabbitMQ CPU", "µs/msg", func(r result) float64 { return r.RabbitUS }},
	{"emulator CPU", "µs/msg", func(r result) float64 { return r.EmulatorUS }},
}

// runHeader and runLine print one run as it finishes.
func runHeader(w io.Writer) {
	fmt.Fprintln(w, "| cell | impl | rep | msg/s | own CPU µs/msg | peak RSS MB | RSS anon / file MB | RabbitMQ µs/msg | Mosquitto µs/msg | emulator µs/msg | p50 ms | p99 ms | unique | dup | missing | ready ms | preload msg/s | load1 5 15 |")
	fmt.Fprintln(w, "|---|---|---|"+strings.Repeat("---:|", 14)+"---|")
}

func runLine(w io.Writer, r result) {
	fmt.Fprintf(w, "| %s | %s | %d | %.0f | %.1f | %.1f | %.1f / %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %d | %d | %d | %.0f | %.0f | %s |",
		r.Cell, r.Impl, r.Rep, r.Rate, r.CPUus, r.RSSMB, r.AnonMB, r.FileMB, r.RabbitUS, r.MosqUS, r.EmulatorUS, r.P50ms, r.P99ms, r.Unique, r.Dups, r.Missing,
		r.ReadyMS, r.PreloadRate, r.Load)
	if r.Calls != "" {
		fmt.Fprintf(w, " calls per message: %s", r.Calls)
	}
	if r.Err != "" {
		fmt.Fprintf(w, " ERROR: %s", strings.ReplaceAll(r.Err, "\n", " "))
	}
	fmt.Fprintln(w)
}

// summary is the medians of a matrix, per cell and impl, with ratios to the
// baseline impl of the same invocation, paired by repetition (the two ran
// next to each other, under the same neighbours).
type summary struct {
	cells    []string
	impls    []string
	baseline string
	runs     map[string]map[string][]result // cell → impl → runs (by rep)
}

func summarise(rs []result, cells, impls []string, baseline string) summary {
	s := summary{cells: cells, impls: impls, baseline: baseline, runs: map[string]map[string][]result{}}
	for _, r := range rs {
		if r.Err != "" {
			continue
		}
		if s.runs[r.Cell] == nil {
			s.runs[r.Cell] = map[string][]result{}
		}
		s.runs[r.Cell][r.Impl] = append(s.runs[r.Cell][r.Impl], r)
	}
	return s
}

func values(rs []result, get func(result) float64) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = get(r)
	}
	return out
}

// pairedRatio is the median over repetitions of impl/baseline.
func (s summary) pairedRatio(cell, impl string, get func(result) float64) float64 {
	base := map[int]float64{}
	for _, r := range s.runs[cell][s.baseline] {
		base[r.Rep] = get(r)
	}
	var ratios []float64
	for _, r := range s.runs[cell][impl] {
		if b, ok := base[r.Rep]; ok {
			ratios = append(ratios, bench.Ratio(get(r), b))
		}
	}
	return bench.Median(ratios)
}

// write prints the summary as a Markdown table: medians (min–max) and,
// for every impl but the baseline, the paired ratio.
func (s summary) write(w io.Writer) {
	fmt.Fprint(w, "| cell | impl | runs |")
	for _, m := range metrics {
		fmt.Fprintf(w, " %s %s |", m.title, m.unit)
	}
	fmt.Fprintln(w, " p50 / p99 ms | dup / missing |")
	fmt.Fprintln(w, "|---|---|---:|"+strings.Repeat("---:|", len(metrics))+"---:|---:|")
	for _, c := range s.cells {
		for _, im := range s.impls {
			rs := s.runs[c][im]
			if len(rs) == 0 {
				continue
			}
			fmt.Fprintf(w, "| %s | %s | %d |", c, im, len(rs))
			for _, m := range metrics {
				v := values(rs, m.get)
				lo, hi := bench.Spread(v)
				fmt.Fprintf(w, " %s (%s–%s)", num(bench.Median(v)), num(lo), num(hi))
				if im != s.baseline {
					if r := s.pairedRatio(c, im, m.get); !math.IsNaN(r) {
						fmt.Fprintf(w, " **%.2f×**", r)
					}
				}
				fmt.Fprint(w, " |")
			}
			dups, miss := 0, 0
			for _, r := range rs {
				dups += r.Dups
				miss += r.Missing
			}
			fmt.Fprintf(w, " %s / %s | %d / %d |\n", num(bench.Median(values(rs, func(r result) float64 { return r.P50ms }))),
				num(bench.Median(values(rs, func(r result) float64 { return r.P99ms }))), dups, miss)
		}
	}
}

// chart draws the summary's medians, one panel per metric.
func (s summary) chart(title string) bench.Chart {
	c := bench.Chart{Title: title, Groups: s.cells, Series: s.impls}
	for _, m := range metrics {
		p := bench.Panel{Title: m.title + " (" + m.unit + ")"}
		for _, cell := range s.cells {
			row := make([]bench.Bar, len(s.impls))
			for i, im := range s.impls {
				v := values(s.runs[cell][im], m.get)
				lo, hi := bench.Spread(v)
				row[i] = bench.Bar{Median: bench.Median(v), Lo: lo, Hi: hi}
			}
			p.Values = append(p.Values, row)
		}
		c.Panels = append(c.Panels, p)
	}
	return c
}

// num formats a figure for the tables: whole numbers from 100 up, one
// decimal below.
func num(v float64) string {
	switch {
	case math.IsNaN(v):
		return "–"
	case math.Abs(v) >= 100:
		return fmt.Sprintf("%.0f", v)
	default:
		return fmt.Sprintf("%.1f", v)
	}
}
