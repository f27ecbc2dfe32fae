package filter

import "github.com/gobridge-oss/gobridge/core/routing"

// Condition is one test of a message: a field, an operator and a value. It
// is the core condition type, so filter conditions and route rules share
// one syntax and one engine.
type Condition = routing.Condition

// Operator names the comparison a Condition makes.
type Operator = routing.Operator

// The operators a condition may use. See the routing package for how each
// one treats missing fields and values of other types.
const (
	// OperatorEquals is true when the field equals the value.
	OperatorEquals = routing.OpEq
	// OperatorNotEquals is true when the field differs from the value or
	// is missing.
	OperatorNotEquals = routing.OpNe
	// OperatorPrefix is true when the field is a string that starts with
	// the value.
	OperatorPrefix = routing.OpPrefix
	// OperatorContains is true when the field is a string that contains
	// the value.
	OperatorContains = routing.OpContains
	// OperatorRegex is true when the field is a string matched by the
	// value, an RE2 regular expression.
	OperatorRegex = routing.OpRegex
	// OperatorGreaterThan is true when the field is a number above the
	// value.
	OperatorGreaterThan = routing.OpGt
	// OperatorLessThan is true when the field is a number below the value.
	OperatorLessThan = routing.OpLt
	// OperatorGreaterThanOrEqual is true when the field is a number at or
	// above the value.
	OperatorGreaterThanOrEqual = routing.OpGte
	// OperatorLessThanOrEqual is true when the field is a number at or
	// below the value.
	OperatorLessThanOrEqual = routing.OpLte
	// OperatorExists tests whether the field is present (value true or
	// nil) or absent (value false).
	OperatorExists = routing.OpExists
	// OperatorIn is true when the field equals one element of the value,
	// a list.
	OperatorIn = routing.OpIn
)
