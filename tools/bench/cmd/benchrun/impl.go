package main

import (
	"fmt"
	"slices"
	"strings"
)

// impl is one forwarder variant under test, named base[+modifier...]:
//
//	bridge                   the gobridge binary (a session per side on AMQP → AMQP)
//	bridge+1conn             ... with one session for both sides
//	bridge+nomandatory       ... publishing without the mandatory flag
//	bridge+noackcoalesce     ... acking each delivery alone
//	bridge+nocoalescewrites  ... without the session's write coalescing
//	bridge+nodlq             ... without a DLQ store (failures dropped), like minimal
//	bridge+minhdr            ... with the AMQP, SQS or Service Bus sender's minimal_headers
//	bridge+env:NAME=VALUE    ... with NAME=VALUE in its environment, e.g. a
//	                         configuration override such as
//	                         GOBRIDGE_SENDERS__0__SETTINGS__BATCH_WINDOW=10ms,
//	                         so that settings are compared in one invocation
//	minimal                  the builder-made binary of minimal-distro.yaml (-distro minimal):
//	                         the two transports only, no DLQ store; takes the bridge's modifiers
//	ref                      the hand-written forwarder (one connection, per-message acks, body only)
//	ref+2conn                ... with a connection per side
//	ref+props                ... adding what the bridge adds (gobridge.subject, message ID, timestamp)
//	ref+headers              ... only its headers (gobridge.subject, x-bridge.correlation-id, mqtt.topic)
//	ref+ids                  ... only its message ID and timestamp
//	ref+minprops             ... what bridge+minhdr sends: message ID, timestamp, mqtt.topic from MQTT
//	ref+mandatory            ... publishing with the mandatory flag
//	ref+multiack             ... acking runs of deliveries with one multiple ack
type impl struct {
	name    string
	bridge  bool // a gobridge binary, curated or minimal
	minimal bool // the minimal distro's binary
	mods    map[string]bool
	env     []string // NAME=VALUE pairs of env: modifiers (bridge impls)
}

// minimalHeaders is the sender setting of the +minhdr modifier, ready to
// append to a sender's settings block ("" without it).
func (im impl) minimalHeaders() string {
	if im.mods["minhdr"] {
		return ", minimal_headers: true"
	}
	return ""
}

var knownMods = map[bool][]string{
	true:  {"1conn", "nomandatory", "noackcoalesce", "nocoalescewrites", "nodlq", "minhdr"},
	false: {"2conn", "props", "headers", "ids", "minprops", "mandatory", "multiack"},
}

// parseImpl reads an impl name.
func parseImpl(s string) (impl, error) {
	parts := strings.Split(s, "+")
	im := impl{name: s, mods: map[string]bool{}}
	switch parts[0] {
	case "bridge":
		im.bridge = true
	case "minimal":
		im.bridge, im.minimal = true, true
	case "ref":
	default:
		return impl{}, fmt.Errorf("impl %q: must start with bridge, minimal or ref", s)
	}
	for _, m := range parts[1:] {
		if kv, isEnv := strings.CutPrefix(m, "env:"); isEnv && im.bridge {
			if name, _, found := strings.Cut(kv, "="); !found || name == "" {
				return impl{}, fmt.Errorf("impl %q: modifier %q is not env:NAME=VALUE", s, m)
			}
			im.env = append(im.env, kv)
			continue
		}
		ok := false
		for _, k := range knownMods[im.bridge] {
			ok = ok || k == m
		}
		if !ok {
			takes := strings.Join(knownMods[im.bridge], ", ")
			if im.bridge {
				takes += ", env:NAME=VALUE"
			}
			return impl{}, fmt.Errorf("impl %q: unknown modifier %q (%s takes %s)", s, m, parts[0], takes)
		}
		im.mods[m] = true
	}
	return im, nil
}

// bridgeEnv is the environment the bridge process of this variant gets:
// the invocation's -bridge-env, then the variant's own.
func (im impl) bridgeEnv(common []string) []string {
	return append(slices.Clone(common), im.env...)
}

// noDLQ reports whether the variant runs without a DLQ store: the minimal
// binary has none to offer.
func (im impl) noDLQ() bool { return im.minimal || im.mods["nodlq"] }

// fwdArgs are the reference forwarder's flags for this variant.
func (im impl) fwdArgs() []string {
	var a []string
	if im.mods["2conn"] {
		a = append(a, "-conns", "2")
	}
	if im.mods["props"] {
		a = append(a, "-bridge-props")
	}
	if im.mods["headers"] {
		a = append(a, "-bridge-headers")
	}
	if im.mods["ids"] {
		a = append(a, "-bridge-ids")
	}
	if im.mods["minprops"] {
		a = append(a, "-bridge-minimal")
	}
	if im.mods["mandatory"] {
		a = append(a, "-mandatory")
	}
	if im.mods["multiack"] {
		a = append(a, "-multi-ack")
	}
	return a
}
