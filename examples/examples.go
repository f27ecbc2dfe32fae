// Package examples holds the example configuration files of the repository,
// embedded so that the gobridge binary can start on the quickstart with no
// file on disk.
package examples

import _ "embed"

// Quickstart is examples/quickstart.yaml: HTTP ingress, a filter and a
// transform, SSE egress, through the SQLite outbox under the data
// directory. It needs no external broker.
//
//go:embed quickstart.yaml
var Quickstart []byte
