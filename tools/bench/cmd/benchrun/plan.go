package main

import "slices"

// planned is one run of a matrix: a cell, an impl, the repetition it
// belongs to, and whether it is a warm-up whose figures are discarded.
type planned struct {
	cell cell
	impl impl
	rep  int
	warm bool
}

// runPlan orders the runs of a matrix. First, warmup runs of each cell by
// the baseline impl (the first impl when none is the baseline), reported
// but left out of the figures: the first runs on freshly started brokers
// were the slowest of a matrix (docs/benchmarks.md), and whichever impl
// drew them lost a pair. Then reps repetitions of every cell, the impls
// rotated from one repetition to the next so that none always runs first
// (or after the same one).
func runPlan(cells []cell, impls []impl, baseline string, reps, warmup int) []planned {
	var plan []planned
	if len(impls) == 0 {
		return nil
	}
	warmImpl := impls[0]
	if i := slices.IndexFunc(impls, func(im impl) bool { return im.name == baseline }); i >= 0 {
		warmImpl = impls[i]
	}
	for range warmup {
		for _, c := range cells {
			plan = append(plan, planned{cell: c, impl: warmImpl, rep: -1, warm: true})
		}
	}
	for rep := range reps {
		for _, c := range cells {
			order := slices.Clone(impls)
			for range rep % len(order) {
				order = append(order[1:], order[0])
			}
			for _, im := range order {
				plan = append(plan, planned{cell: c, impl: im, rep: rep})
			}
		}
	}
	return plan
}
