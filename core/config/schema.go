package config

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// Plugin kinds accepted as keys of Schema's plugins argument.
const (
	KindReceiver  = "receiver"
	KindSender    = "sender"
	KindSession   = "session"
	KindProcessor = "processor"
	KindStore     = "store"
	// KindTracer is the kind of telemetry.tracing's plugin.
	KindTracer = "tracer"
)

// durationPattern matches Go durations such as 1.5s or 1h2m.
const durationPattern = `^-?([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$|^0$`

// Schema returns a JSON Schema (draft 2020-12) of the whole configuration
// file, for editors. plugins[kind][type] is the settings schema of one
// plugin type, kind being receiver, sender, session, processor, store or
// tracer;
// each component's settings are then checked by a oneOf keyed on its type.
// A kind without plugins accepts any type and any settings.
func Schema(plugins map[string]map[string]json.RawMessage) ([]byte, error) {
	for kind := range plugins {
		if !slices.Contains([]string{KindReceiver, KindSender, KindSession, KindProcessor, KindStore, KindTracer}, kind) {
			return nil, fmt.Errorf("config: schema: unknown plugin kind %q", kind)
		}
	}
	root := typeSchema(reflect.TypeFor[File]())
	root["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	root["$id"] = "https://gobridge.dev/schema/config.json"
	root["title"] = "gobridge configuration"
	defs := map[string]any{}
	component := typeSchema(reflect.TypeFor[Component]())
	processor := typeSchema(reflect.TypeFor[Processor]())
	store := typeSchema(reflect.TypeFor[Store]())
	tracer := typeSchema(reflect.TypeFor[Tracing]())
	for kind, generic := range map[string]map[string]any{
		KindReceiver: component, KindSender: component, KindSession: component,
		KindProcessor: processor, KindStore: store, KindTracer: tracer,
	} {
		defs[kind] = pluginSchema(generic, plugins[kind])
	}
	root["$defs"] = defs
	props := root["properties"].(map[string]any)
	ref := func(kind string) map[string]any { return map[string]any{"$ref": "#/$defs/" + kind} }
	props["receivers"] = map[string]any{"type": "array", "items": ref(KindReceiver)}
	props["senders"] = map[string]any{"type": "array", "items": ref(KindSender)}
	props["sessions"] = map[string]any{"type": "array", "items": ref(KindSession)}
	props["processors"] = map[string]any{"type": "object", "additionalProperties": ref(KindProcessor)}
	storeProps := props["stores"].(map[string]any)["properties"].(map[string]any)
	for k := range storeProps {
		storeProps[k] = ref(KindStore)
	}
	telProps := props["telemetry"].(map[string]any)["properties"].(map[string]any)
	telProps["tracing"] = ref(KindTracer)
	out, err := json.MarshalIndent(root, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("config: schema: %w", err)
	}
	return out, nil
}

// pluginSchema is generic with, when types are known, a oneOf that pins
// "type" to each known type and checks its settings.
func pluginSchema(generic map[string]any, types map[string]json.RawMessage) map[string]any {
	if len(types) == 0 {
		return generic
	}
	var branches []any
	for _, name := range sortedKeys(types) {
		props := map[string]any{}
		for k, v := range generic["properties"].(map[string]any) {
			props[k] = v
		}
		props["type"] = map[string]any{"const": name}
		if raw := types[name]; len(raw) > 0 {
			props["settings"] = raw
		}
		branches = append(branches, map[string]any{
			"type": "object", "properties": props, "required": []string{"type"}, "additionalProperties": false,
		})
	}
	return map[string]any{"oneOf": branches}
}

// markSecret marks a property schema as a secret: "writeOnly" (JSON
// Schema's own word: a value one sets but never reads back) and "x-secret",
// which Redacted and editors act on.
func markSecret(s map[string]any) {
	s["writeOnly"] = true
	s["x-secret"] = true
}

// typeSchema describes a model type from its fields' yaml, enum and secret
// tags.
func typeSchema(t reflect.Type) map[string]any {
	switch t {
	case durationType():
		return map[string]any{"type": "string", "pattern": durationPattern}
	case offDurationType():
		return map[string]any{"type": "string", "pattern": durationPattern + `|^off$`}
	case reflect.TypeFor[map[string]any]():
		return map[string]any{"type": "object"}
	case reflect.TypeFor[any]():
		return map[string]any{}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return typeSchema(t.Elem())
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int:
		return map[string]any{"type": "integer"}
	case reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice:
		return map[string]any{"type": "array", "items": typeSchema(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": typeSchema(t.Elem())}
	case reflect.Struct:
		props := map[string]any{}
		for i := range t.NumField() {
			f := t.Field(i)
			key := f.Tag.Get("yaml")
			if key == "" || !f.IsExported() {
				continue
			}
			s := typeSchema(f.Type)
			if enum := f.Tag.Get("enum"); enum != "" {
				s["enum"] = strings.Split(enum, ",")
			}
			if f.Tag.Get("secret") == "true" {
				markSecret(s)
			}
			props[key] = s
		}
		return map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	}
	return map[string]any{}
}
