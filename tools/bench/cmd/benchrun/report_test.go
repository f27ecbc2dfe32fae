package main

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPairedRatioAndSummary(t *testing.T) {
	const c = "amqp-amqp 256B w500"
	rs := []result{
		{Cell: c, Impl: "ref", Rep: 0, Rate: 1000, CPUus: 20},
		{Cell: c, Impl: "bridge", Rep: 0, Rate: 900, CPUus: 30},
		{Cell: c, Impl: "ref", Rep: 1, Rate: 2000, CPUus: 20},
		{Cell: c, Impl: "bridge", Rep: 1, Rate: 2200, CPUus: 24},
		{Cell: c, Impl: "ref", Rep: 2, Rate: 1000, CPUus: 40},
		{Cell: c, Impl: "bridge", Rep: 2, Rate: 1000, CPUus: 44},
		{Cell: c, Impl: "bridge", Rep: 3, Rate: 5, Err: "timed out"}, // failed runs are left out
	}
	s := summarise(rs, []string{c}, []string{"bridge", "ref"}, "ref")
	tests := []struct {
		name string
		get  func(result) float64
		want float64
	}{
		// Per repetition 0.9, 1.1, 1.0: the median is 1.0, while the
		// ratio of the medians would be 1000/1000 as well, but for CPU ...
		{"throughput", func(r result) float64 { return r.Rate }, 1.0},
		// ... per repetition 1.5, 1.2, 1.1 gives 1.2; medians 30/20 would say 1.5.
		{"cpu", func(r result) float64 { return r.CPUus }, 1.2},
	}
	for _, tt := range tests {
		if got := s.pairedRatio(c, "bridge", tt.get); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("%s ratio = %v, want %v", tt.name, got, tt.want)
		}
	}
	if got := len(s.runs[c]["bridge"]); got != 3 {
		t.Errorf("bridge runs kept = %d, want 3 (the failed one left out)", got)
	}
	var b strings.Builder
	s.write(&b)
	for _, want := range []string{"| amqp-amqp 256B w500 | bridge | 3 | 1000 (900–2200) **1.00×** |", "| amqp-amqp 256B w500 | ref | 3 | 1000 (1000–2000) |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
	ch := s.chart("t")
	if diff := cmp.Diff([]string{"bridge", "ref"}, ch.Series); diff != "" {
		t.Error(diff)
	}
	if got := ch.Panels[0].Values[0][0].Median; got != 1000 {
		t.Errorf("chart throughput median = %v, want 1000", got)
	}
}

func TestParseImpl(t *testing.T) {
	tests := []struct {
		in      string
		bridge  bool
		fwdArgs []string
		wantErr bool
	}{
		{in: "bridge", bridge: true},
		{in: "bridge+1conn+nomandatory", bridge: true},
		{in: "ref"},
		{in: "ref+2conn+props+mandatory+multiack", fwdArgs: []string{"-conns", "2", "-bridge-props", "-mandatory", "-multi-ack"}},
		{in: "ref+headers+ids", fwdArgs: []string{"-bridge-headers", "-bridge-ids"}},
		{in: "ref+minprops+mandatory", fwdArgs: []string{"-bridge-minimal", "-mandatory"}},
		{in: "ref+1conn", wantErr: true},    // a bridge modifier on the reference
		{in: "bridge+props", wantErr: true}, // and the other way round
		{in: "other", wantErr: true},
	}
	for _, tt := range tests {
		im, err := parseImpl(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("%s: err = %v, wantErr %v", tt.in, err, tt.wantErr)
			continue
		}
		if err != nil {
			continue
		}
		if im.bridge != tt.bridge {
			t.Errorf("%s: bridge = %v", tt.in, im.bridge)
		}
		if diff := cmp.Diff(tt.fwdArgs, im.fwdArgs()); diff != "" {
			t.Errorf("%s: fwd args (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestBridgeConfig(t *testing.T) {
	n := names{src: "s", exchange: "x", dst: "d", topic: "bench/in", clientID: "cid"}
	tests := []struct {
		name     string
		c        cell
		impl     string
		contains []string
		absent   []string
	}{
		{
			name: "amqp route with a session per side",
			c:    cell{"amqp-amqp", 256, 500}, impl: "bridge",
			contains: []string{"id: rabbit-in", "id: rabbit-out", "session_id: rabbit-out", "queue: s}", "exchange: x}",
				"address: d}", "delivery_mode: direct_hold", "max_in_flight: 500", `monitor_addr: "127.0.0.1:2"`},
			absent: []string{"mandatory", "ack_coalescing", "coalesce_writes", "type: mqtt"},
		},
		{
			name: "amqp route variants",
			c:    cell{"amqp-amqp", 256, 100}, impl: "bridge+1conn+nomandatory+noackcoalesce+nocoalescewrites",
			contains: []string{"session_id: rabbit-in, settings: {exchange: x, mandatory: false}", "ack_coalescing: false", "coalesce_writes: false", "max_in_flight: 100"},
			absent:   []string{"rabbit-out"},
		},
		{
			name: "mqtt route resumes a fixed session with receive maximum = window",
			c:    cell{"mqtt-amqp", 256, 500}, impl: "bridge",
			contains: []string{`urls: ["mqtt://127.0.0.1:1884"], client_id: cid, session_expiry: 1h, receive_maximum: 500`,
				`subscriptions: [{topic: "bench/in", qos: 1}]`, "session_id: rabbit-out"},
			absent: []string{"rabbit-in"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			im, err := parseImpl(tt.impl)
			if err != nil {
				t.Fatal(err)
			}
			y := bridgeConfig(tt.c, im, n, "amqp://u:p@h:5672/", "127.0.0.1:1884", 1, 2)
			for _, s := range tt.contains {
				if !strings.Contains(y, s) {
					t.Errorf("config lacks %q:\n%s", s, y)
				}
			}
			for _, s := range tt.absent {
				if strings.Contains(y, s) {
					t.Errorf("config has %q:\n%s", s, y)
				}
			}
		})
	}
}
