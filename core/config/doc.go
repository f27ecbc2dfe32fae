// Package config is gobridge's configuration file: the model, loading,
// defaults and validation.
//
// # Loading
//
// Load (or Parse, for bytes) reads one YAML document with koanf, then, in
// this order, applies environment overrides, resolves secret references,
// decodes strictly into File and fills in defaults. Every decoding problem
// is collected and returned at once as Problems, each naming its path, for
// example:
//
//	routes[2].policy.backoff.multiplier: expected a number, got string "x"
//	routes[0].policy.send_timeout: invalid duration "soon"
//	routes[0].polcy: unknown key
//
// Plugin settings (the settings blocks of receivers, senders, sessions,
// processors and stores) are kept as plain YAML data; the registry decodes
// them.
//
// # Environment overrides
//
// A variable GOBRIDGE_<PATH>=<value> sets the value at PATH, where a double
// underscore separates nesting levels, a number indexes a list and names
// are lower-cased:
//
//	GOBRIDGE_ROUTES__0__POLICY__MAX_IN_FLIGHT=50    routes[0].policy.max_in_flight
//	GOBRIDGE_HTTP__ADMIN_API_KEY=...                 http.admin_api_key
//	GOBRIDGE_ROUTES__0__BINDINGS=[a, b]              routes[0].bindings
//
// Missing mappings are created; an index one past the end of a list appends
// an element. Values are text: a typed field parses it (numbers, booleans,
// durations), a list or mapping field reads it as YAML flow syntax, and
// inside settings it is read as a YAML scalar. Variables whose first
// segment is not a top-level key of the file are ignored. The prefix is
// changed with WithEnvPrefix; the environment is given with WithEnv.
//
// # Secrets
//
// A string value may hold ${env:NAME} (the variable NAME) or ${file:/path}
// (the file's contents without one trailing newline), alone or inside
// other text; "$${" is a literal "${". Any other "${...}" (a shell's
// ${NAME}) is a Problem that names the supported form, since it would be
// kept as written; a whole value like $NAME is a Warning. References are
// resolved at load, including inside settings and in override values. A
// missing variable or unreadable file is a Problem naming the path and the
// reference, never a value. Values from references are never printed in
// problems or warnings (File.Scrub hides them in any other message) and
// are replaced by "<redacted>" in Redacted.
//
// A document that did not come from the operator's own file, such as one
// posted to the admin API, is parsed with WithAllowedRefs: a reference it
// holds resolves only when the list names it ("env:NAME", "file:/path",
// from http.posted_config_refs); any other is a Problem naming the
// reference, and nothing is read for it.
//
// # Redaction
//
// Redacted renders the configuration for the admin API with secrets
// hidden: fields marked secret (the model's secret:"true" tags, and plugin
// settings whose schema carries "x-secret"/"writeOnly", which the registry
// derives from the same tag), values from references, settings whose key
// names a credential, and URL passwords and credential query values in any
// string (RedactText).
//
// # Validation
//
// File.Validate checks references between sections, every field's allowed
// values and ranges, and cross-field rules (delivery mode and stores,
// backoff, drain settings, lease cadence, http block), and returns
// warnings for valid but risky settings. See docs/config.md for the list.
package config
