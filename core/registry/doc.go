// Package registry maps the type names that appear in a configuration file
// (type: http, type: sqlite, ...) to the Go code that builds them.
//
// A plugin module exposes factories built with Receiver, Sender, Session,
// Processor and Store; a distro creates a Registry and adds the factories it
// bundles, in plain code: there is no init-time registration and no global
// registry, so a binary contains exactly the plugins its distro lists.
//
// Each factory owns its settings block. Decode turns the raw settings of a
// configuration entry into the plugin's typed config strictly (an unknown
// key or a wrong type is an error naming the key), applies the config's
// defaults and runs its validation; Schema describes the block as JSON
// Schema for editors.
package registry
