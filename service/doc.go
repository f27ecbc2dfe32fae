// Package service turns a configuration into a running bridge, for any
// binary: the curated gobridge distro, a distro built with the builder,
// or a Go program that embeds a bridge. It builds stores, sessions,
// senders, processors and receivers with the factories it is given (it
// knows no plugin itself), runs each route in a runtime of its own so
// that a reload can swap one route without touching the others, and
// answers the admin and monitor APIs.
//
//	svc, err := service.New(ctx, yamlBytes, service.Settings{Factories: factories})
//	if err != nil { ... }
//	err = svc.Run(ctx) // until ctx ends; then routes drain and stores close
//
// The process around it (flags, signals, the HTTP listeners, logging and
// metrics set-up) is in the cli package.
package service
