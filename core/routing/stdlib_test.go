package routing

import (
	"bytes"
	"encoding/json"
)

// extracted is a payload value in a form both implementations can produce.
type extracted struct {
	Kind string // null, bool, number, string, array, object, missing
	Val  string // scalar text: true/false, the number literal, the string
}

// stdlibLookup finds segs in p with encoding/json. valid reports whether
// encoding/json accepts p.
func stdlibLookup(p []byte, segs []segment) (e extracted, valid bool) {
	if !json.Valid(p) {
		return extracted{}, false
	}
	d := json.NewDecoder(bytes.NewReader(p))
	d.UseNumber()
	var cur any
	if err := d.Decode(&cur); err != nil {
		return extracted{}, false
	}
	for _, s := range segs {
		switch x := cur.(type) {
		case map[string]any:
			v, ok := x[s.key]
			if !ok {
				return extracted{Kind: "missing"}, true
			}
			cur = v
		case []any:
			if s.idx < 0 || s.idx >= len(x) {
				return extracted{Kind: "missing"}, true
			}
			cur = x[s.idx]
		default:
			return extracted{Kind: "missing"}, true
		}
	}
	switch x := cur.(type) {
	case nil:
		return extracted{Kind: "null"}, true
	case bool:
		if x {
			return extracted{Kind: "bool", Val: "true"}, true
		}
		return extracted{Kind: "bool", Val: "false"}, true
	case json.Number:
		return extracted{Kind: "number", Val: string(x)}, true
	case string:
		return extracted{Kind: "string", Val: x}, true
	case []any:
		return extracted{Kind: "array"}, true
	default:
		return extracted{Kind: "object"}, true
	}
}

// ourLookup finds segs in p with the package's scanner.
func ourLookup(p []byte, segs []segment) (e extracted, valid bool) {
	tab := newPathTable()
	slot := tab.add(segs)
	vals := make([]jval, tab.slots)
	if !scanJSON(p, &tab.root, vals) {
		return extracted{}, false
	}
	jv := vals[slot]
	f := fromJSON(p, &jv)
	switch jv.kind {
	case kMissing:
		return extracted{Kind: "missing"}, true
	case kNull:
		return extracted{Kind: "null"}, true
	case kBool:
		return extracted{Kind: "bool", Val: string(f.raw)}, true
	case kNum:
		return extracted{Kind: "number", Val: string(f.raw)}, true
	case kStr:
		return extracted{Kind: "string", Val: string(f.raw)}, true
	case kArr:
		return extracted{Kind: "array"}, true
	default:
		return extracted{Kind: "object"}, true
	}
}
