package routing

import "github.com/gobridge-oss/gobridge/core/messaging"

// inlineSlots is how many payload paths an Input can hold without
// allocating.
const inlineSlots = 8

// Input is the evaluation state of one message. Create it with NewInput
// (or Reset an existing one), keep it on the stack, and pass its address to
// any number of Matcher.Match calls for the same message.
//
// Input reads the payload only when a condition needs a $. field, and then
// scans it once for every path of the matcher set; matchers compiled
// together (such as the rules of one resolver) therefore share one scan.
// Matchers from separate Compile calls each have their own path set, and
// alternating between them on one Input rescans the payload.
//
// Input takes a snapshot view of the envelope: after changing the
// envelope's payload, call Reset before matching again. An Input must not
// be used by several goroutines at once. Up to eight distinct payload paths
// per matcher set are held without heap allocation.
type Input struct {
	env     *messaging.Envelope
	payload []byte     // the payload that was scanned
	tab     *pathTable // path set the results belong to; nil before a scan
	valid   bool       // the payload was well-formed JSON
	scans   int        // payload scans so far, for tests
	inline  [inlineSlots]jval
	extra   []jval
}

// NewInput returns the evaluation state for env. It does not allocate. A
// nil env is allowed: every field is then missing.
func NewInput(env *messaging.Envelope) Input { return Input{env: env} }

// Reset prepares in for env, forgetting anything read from the previous
// message.
func (in *Input) Reset(env *messaging.Envelope) {
	extra := in.extra[:0]
	*in = Input{env: env, extra: extra}
}

// lookup returns the payload value recorded for slot of tab, scanning the
// payload first when tab has not been scanned yet. It returns nil when the
// value is missing.
func (in *Input) lookup(tab *pathTable, slot int) *jval {
	if in.tab != tab {
		in.scan(tab)
	}
	if !in.valid {
		return nil
	}
	var v *jval
	if tab.slots <= inlineSlots {
		v = &in.inline[slot]
	} else {
		v = &in.extra[slot]
	}
	if v.kind == kMissing {
		return nil
	}
	return v
}

func (in *Input) scan(tab *pathTable) {
	in.tab = tab
	in.scans++
	var vals []jval
	if tab.slots <= inlineSlots {
		vals = in.inline[:tab.slots]
	} else {
		if cap(in.extra) < tab.slots {
			in.extra = make([]jval, tab.slots)
		}
		in.extra = in.extra[:tab.slots]
		vals = in.extra
	}
	clear(vals)
	if in.env != nil {
		in.payload = in.env.PayloadView()
	}
	in.valid = scanJSON(in.payload, &tab.root, vals)
}
