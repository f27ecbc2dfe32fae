package routing

import (
	"errors"
	"regexp"
	"unicode/utf8"
)

// Matcher is a compiled list of conditions, all of which must hold. It is
// immutable and safe for concurrent use.
type Matcher struct {
	conds []cond
	tab   *pathTable // nil when no condition reads the payload
}

// cond is one compiled condition.
type cond struct {
	field fieldKind
	key   string // header name
	slot  int    // result slot of a payload path
	op    Operator
	val   cval
	want  bool // expected presence for OpExists
	re    *regexp.Regexp
}

// Compile checks conds and compiles them into a Matcher that is true when
// every condition holds; an empty list matches every message. Regular
// expressions are compiled here, once.
//
// All problems found are returned together (joined with errors.Join), each
// an INVALID_CONFIG fault.BridgeError naming the condition's position, for
// example `conditions[1]: operator "foo" is invalid`.
func Compile(conds []Condition) (*Matcher, error) {
	m, errs := compileConditions(conds, newPathTable(), "conditions")
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return m, nil
}

// compileConditions compiles conds, registering their payload paths in
// tab, and reports problems positioned under prefix.
func compileConditions(conds []Condition, tab *pathTable, prefix string) (*Matcher, []error) {
	m := &Matcher{conds: make([]cond, 0, len(conds))}
	var errs []error
	for i, c := range conds {
		cc, probs := compileCondition(c, tab)
		for _, p := range probs {
			errs = append(errs, p.at(prefix, i))
		}
		if len(probs) == 0 {
			m.conds = append(m.conds, cc)
			if cc.field == fieldJSON {
				m.tab = tab
			}
		}
	}
	return m, errs
}

func compileCondition(c Condition, tab *pathTable) (cond, []problem) {
	var probs []problem
	var cc cond
	var segs []segment
	if c.Field == "" {
		probs = append(probs, problemf("field is required"))
	} else {
		kind, key, s, err := parseField(c.Field)
		if err != nil {
			probs = append(probs, problem{msg: err.Error()})
		}
		cc.field, cc.key, segs = kind, key, s
	}
	cc.op = c.Operator
	switch {
	case c.Operator == "":
		probs = append(probs, problemf("operator is required"))
	case !c.Operator.valid():
		probs = append(probs, problemf("operator %q is invalid", c.Operator))
	default:
		if p, ok := cc.compileValue(c.Value); !ok {
			probs = append(probs, p)
		}
	}
	if len(probs) > 0 {
		return cond{}, probs
	}
	if cc.field == fieldJSON {
		cc.slot = tab.add(segs)
	}
	return cc, nil
}

// compileValue checks the configured value against the operator.
func (cc *cond) compileValue(v any) (problem, bool) {
	if cc.op == OpExists {
		switch x := v.(type) {
		case nil:
			cc.want = true
		case bool:
			cc.want = x
		default:
			return problemf("operator %q requires a boolean value, got %T", cc.op, v), false
		}
		return problem{}, true
	}
	val, err := normalize(v, 0)
	if err != nil {
		return problemf("value: %v", err), false
	}
	cc.val = val
	switch cc.op {
	case OpIn:
		if val.kind != kArr {
			return problemf("operator %q requires a list value, got %s", cc.op, val.kind), false
		}
	case OpPrefix, OpContains:
		if val.kind != kStr {
			return problemf("operator %q requires a string value, got %s", cc.op, val.kind), false
		}
	case OpRegex:
		if val.kind != kStr {
			return problemf("operator %q requires a string value, got %s", cc.op, val.kind), false
		}
		if utf8.RuneCountInString(val.s) > MaxRegexLength {
			return problemf("regex pattern exceeds maximum length of %d characters", MaxRegexLength), false
		}
		re, err := regexp.Compile(val.s)
		if err != nil {
			return problem{msg: "invalid regex pattern", cause: err}, false
		}
		cc.re = re
	case OpGt, OpLt, OpGte, OpLte:
		if val.kind != kNum {
			return problemf("operator %q requires a numeric value, got %s", cc.op, val.kind), false
		}
	}
	return problem{}, true
}
