// Package servicetest runs the service package against the plugins the
// distro bundles: the service module itself depends on core alone, so
// its tests that need real transports and stores live here.
package servicetest
