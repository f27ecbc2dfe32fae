package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestImplList(t *testing.T) {
	tests := []struct {
		names  string
		distro string
		want   []string
		err    string
	}{
		{"bridge,ref", "curated", []string{"bridge", "ref"}, ""},
		{"bridge,ref", "minimal", []string{"bridge", "minimal", "ref"}, ""},
		{"bridge,bridge+minhdr,ref", "minimal", []string{"bridge", "bridge+minhdr", "minimal", "ref"}, ""},
		{"ref,minimal+minhdr", "minimal", []string{"ref", "minimal+minhdr"}, ""},
		{"ref", "minimal", []string{"minimal", "ref"}, ""},
		{"minimal+props", "curated", nil, `unknown modifier "props"`},
		{"tiny", "curated", nil, "must start with bridge, minimal or ref"},
		{"bridge+env:GOGC=200,ref", "curated", []string{"bridge+env:GOGC=200", "ref"}, ""},
		{"ref+env:GOGC=200", "curated", nil, `unknown modifier "env:GOGC=200"`},
		{"bridge+env:=1", "curated", nil, "is not env:NAME=VALUE"},
		{"bridge+env:GOGC", "curated", nil, "is not env:NAME=VALUE"},
	}
	for _, tt := range tests {
		t.Run(tt.names+"/"+tt.distro, func(t *testing.T) {
			impls, err := implList(list(tt.names), tt.distro)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, im := range impls {
				got = append(got, im.name)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("impls (-want +got):\n%s", diff)
			}
		})
	}
}

// TestImplEnv checks that a variant's env: modifiers come after the
// invocation's -bridge-env, so that they win, and leave it unchanged.
func TestImplEnv(t *testing.T) {
	im, err := parseImpl("bridge+minhdr+env:A=1+env:B=x=y")
	if err != nil {
		t.Fatal(err)
	}
	common := []string{"GOGC=100", "A=0"}
	if diff := cmp.Diff([]string{"GOGC=100", "A=0", "A=1", "B=x=y"}, im.bridgeEnv(common)); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"GOGC=100", "A=0"}, common); diff != "" {
		t.Errorf("common env changed (-want +got):\n%s", diff)
	}
	if !im.mods["minhdr"] {
		t.Error("minhdr modifier lost next to env: ones")
	}
}

// TestBridgeConfigVariants checks the configuration lines that the
// minimal binary and the modifiers change.
func TestBridgeConfigVariants(t *testing.T) {
	c := cell{route: "mqtt-amqp", size: 256, window: 500}
	tests := []struct {
		impl       string
		has, lacks []string
	}{
		{"bridge", []string{"dlq: {type: sqlite", "policy: {max_in_flight: 500}"}, []string{"minimal_headers", "allow_retry_drop"}},
		{"bridge+minhdr", []string{"minimal_headers: true", "dlq: {type: sqlite"}, nil},
		{"bridge+nodlq", []string{"on_permanent_failure: drop", "allow_retry_drop: true"}, []string{"stores:", "sqlite"}},
		{"minimal", []string{"on_expired: drop", "allow_retry_drop: true"}, []string{"stores:", "minimal_headers"}},
		{"minimal+minhdr", []string{"minimal_headers: true", "allow_retry_drop: true"}, []string{"stores:"}},
	}
	for _, tt := range tests {
		t.Run(tt.impl, func(t *testing.T) {
			im, err := parseImpl(tt.impl)
			if err != nil {
				t.Fatal(err)
			}
			cfg := bridgeConfig(c, im, namesFor(c.route, im), "amqp://x", "127.0.0.1:1", 1, 2)
			for _, s := range tt.has {
				if !strings.Contains(cfg, s) {
					t.Errorf("no %q in\n%s", s, cfg)
				}
			}
			for _, s := range tt.lacks {
				if strings.Contains(cfg, s) {
					t.Errorf("%q in\n%s", s, cfg)
				}
			}
		})
	}
}
