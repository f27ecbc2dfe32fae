package service

import (
	"maps"
	"slices"
)

// sortedKeys returns m's keys in order, so builds and reports are stable.
func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
