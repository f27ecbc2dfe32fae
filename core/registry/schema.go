package registry

import (
	"encoding/json"
	"reflect"
	"strings"
	"time"
)

// schemaOf describes C's yaml-tagged fields as a JSON Schema object. It
// knows types, not meanings: descriptions beyond doc live in each plugin's
// README.
func schemaOf[C any](doc string) json.RawMessage {
	s := typeSchema(reflect.TypeFor[C](), 0)
	if doc != "" {
		s["description"] = doc
	}
	out, err := json.Marshal(s)
	if err != nil {
		return json.RawMessage(`{"type":"object"}`)
	}
	return out
}

// maxSchemaDepth stops recursive types from recursing forever.
const maxSchemaDepth = 8

func typeSchema(t reflect.Type, depth int) map[string]any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if depth > maxSchemaDepth {
		return map[string]any{}
	}
	if t == reflect.TypeFor[time.Duration]() {
		return map[string]any{"type": "string", "pattern": `^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`,
			"description": "a duration such as 500ms, 30s or 1h30m"}
	}
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice, reflect.Array:
		return map[string]any{"type": "array", "items": typeSchema(t.Elem(), depth+1)}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": typeSchema(t.Elem(), depth+1)}
	case reflect.Struct:
		props := map[string]any{}
		addFields(t, props, depth)
		return map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	}
	return map[string]any{} // interface{}: any JSON value
}

// addFields adds t's yaml-tagged fields to props; untagged embedded
// structs contribute their own fields, as the decoder reads them. A field
// tagged secret:"true" is marked "writeOnly" and "x-secret".
func addFields(t reflect.Type, props map[string]any, depth int) {
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			if f.Anonymous && f.Type.Kind() == reflect.Struct {
				addFields(f.Type, props, depth)
				continue
			}
			name = strings.ToLower(f.Name)
		}
		s := typeSchema(f.Type, depth+1)
		if f.Tag.Get("secret") == "true" {
			// A secret: set in the file, never shown back. The admin API
			// redacts what carries these marks.
			s["writeOnly"] = true
			s["x-secret"] = true
		}
		props[name] = s
	}
}
