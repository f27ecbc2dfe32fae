package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
)

// chartCmd redraws the summary and the chart of a results.json that a
// matrix wrote, without running anything.
func chartCmd(args []string) error {
	fs := flag.NewFlagSet("chart", flag.ContinueOnError)
	in := fs.String("in", "results.json", "results written by a matrix run (-out DIR/results.json)")
	out := fs.String("o", "chart.svg", "the SVG to write")
	baseline := fs.String("baseline", "ref", "the impl the ratios are taken against")
	title := fs.String("title", "gobridge vs hand-written forwarder", "chart title")
	if err := fs.Parse(args); err != nil {
		return err
	}
	b, err := os.ReadFile(*in)
	if err != nil {
		return err
	}
	var rs []result
	if err := json.Unmarshal(b, &rs); err != nil {
		return fmt.Errorf("%s: %w", *in, err)
	}
	var cells, impls []string
	for _, r := range rs {
		if !slices.Contains(cells, r.Cell) {
			cells = append(cells, r.Cell)
		}
		if !slices.Contains(impls, r.Impl) {
			impls = append(impls, r.Impl)
		}
	}
	s := summarise(rs, cells, impls, *baseline)
	s.write(os.Stdout)
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	if err := s.chart(*title).WriteSVG(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
