package main

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRunPlan(t *testing.T) {
	cells := []cell{{"amqp-amqp", 256, 500}, {"mqtt-amqp", 256, 500}}
	impls := []impl{{name: "bridge"}, {name: "ref"}}
	show := func(p []planned) []string {
		var out []string
		for _, r := range p {
			s := fmt.Sprintf("%s %s %d", r.cell.route, r.impl.name, r.rep)
			if r.warm {
				s += " warm"
			}
			out = append(out, s)
		}
		return out
	}
	tests := []struct {
		name     string
		baseline string
		reps     int
		warmup   int
		want     []string
	}{
		{"no warm-up", "ref", 2, 0, []string{
			"amqp-amqp bridge 0", "amqp-amqp ref 0", "mqtt-amqp bridge 0", "mqtt-amqp ref 0",
			"amqp-amqp ref 1", "amqp-amqp bridge 1", "mqtt-amqp ref 1", "mqtt-amqp bridge 1"}},
		{"one warm-up run per cell by the baseline", "ref", 1, 1, []string{
			"amqp-amqp ref -1 warm", "mqtt-amqp ref -1 warm",
			"amqp-amqp bridge 0", "amqp-amqp ref 0", "mqtt-amqp bridge 0", "mqtt-amqp ref 0"}},
		{"a baseline not among the impls warms with the first", "other", 1, 1, []string{
			"amqp-amqp bridge -1 warm", "mqtt-amqp bridge -1 warm",
			"amqp-amqp bridge 0", "amqp-amqp ref 0", "mqtt-amqp bridge 0", "mqtt-amqp ref 0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := show(runPlan(cells, impls, tt.baseline, tt.reps, tt.warmup))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
		})
	}
	if p := runPlan(cells, nil, "ref", 3, 1); p != nil {
		t.Errorf("plan without impls = %v, want none", p)
	}
}
