package sqlite

import "github.com/gobridge-oss/gobridge/core/registry"

// Factories returns every factory of this module, for a distro's
// component list: a builder-generated distro calls it for each plugin
// module its manifest names.
func Factories() []registry.Factory {
	return []registry.Factory{
		Factory(),
	}
}
