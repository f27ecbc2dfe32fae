package config

import (
	"encoding/json"
	"reflect"
	"strings"
	"time"
)

// RedactedValue replaces hidden values in Redacted.
const RedactedValue = "<redacted>"

// Redacted returns the configuration as plain data (maps, lists, strings,
// numbers, booleans; durations as strings such as "30s") for the admin API.
// plugins has the shape Schema takes: plugins[kind][type] is a plugin's
// settings schema. Hidden behind "<redacted>" are:
//
//   - fields of the model and plugin settings marked secret: the model's
//     fields tagged secret:"true", and every settings value whose schema
//     says "x-secret" or "writeOnly" (a mapping keeps its keys and a list
//     its length, each value hidden);
//   - every value that came from a ${env:} or ${file:} reference;
//   - settings whose key contains password, secret, token, api_key,
//     private_key or credential, whatever the schema says (this covers
//     plugins whose schema is not given);
//   - in every string, the password of a URL's user information and the
//     value of each query parameter whose name looks like a credential
//     (see RedactText).
func (f *File) Redacted(plugins map[string]map[string]json.RawMessage) map[string]any {
	e := encoder{secrets: f.secrets}
	m, _ := e.encode("", reflect.ValueOf(f).Elem()).(map[string]any)
	schemas := decodeSchemas(plugins)
	for section, kind := range map[string]string{"receivers": KindReceiver, "senders": KindSender, "sessions": KindSession} {
		list, _ := m[section].([]any)
		for _, el := range list {
			redactSettings(el, schemas[kind])
		}
	}
	procs, _ := m["processors"].(map[string]any)
	for _, p := range procs {
		redactSettings(p, schemas[KindProcessor])
	}
	stores, _ := m["stores"].(map[string]any)
	for _, s := range stores {
		redactSettings(s, schemas[KindStore])
	}
	if tel, ok := m["telemetry"].(map[string]any); ok {
		redactSettings(tel["tracing"], schemas[KindTracer])
	}
	out, _ := redactStrings(m).(map[string]any)
	return out
}

// decodeSchemas reads each plugin schema; an unreadable one counts as
// absent.
func decodeSchemas(plugins map[string]map[string]json.RawMessage) map[string]map[string]map[string]any {
	out := map[string]map[string]map[string]any{}
	for kind, types := range plugins {
		out[kind] = map[string]map[string]any{}
		for typ, raw := range types {
			var s map[string]any
			if json.Unmarshal(raw, &s) == nil {
				out[kind][typ] = s
			}
		}
	}
	return out
}

// redactSettings hides the secret values of one encoded component, whose
// "type" selects its schema among types.
func redactSettings(component any, types map[string]map[string]any) {
	c, ok := component.(map[string]any)
	if !ok {
		return
	}
	typ, _ := c["type"].(string)
	if schema, ok := types[typ]; ok {
		c["settings"] = redactBySchema(c["settings"], schema)
	}
}

// redactBySchema hides the parts of v that schema marks secret.
func redactBySchema(v any, schema map[string]any) any {
	if schema == nil {
		return v
	}
	if schema["x-secret"] == true || schema["writeOnly"] == true {
		return hideAll(v)
	}
	switch x := v.(type) {
	case map[string]any:
		props, _ := schema["properties"].(map[string]any)
		extra, _ := schema["additionalProperties"].(map[string]any)
		for k, el := range x {
			if ps, ok := props[k].(map[string]any); ok {
				x[k] = redactBySchema(el, ps)
			} else if extra != nil {
				x[k] = redactBySchema(el, extra)
			}
		}
	case []any:
		items, _ := schema["items"].(map[string]any)
		for i, el := range x {
			x[i] = redactBySchema(el, items)
		}
	}
	return v
}

// hideAll replaces every value inside v, keeping the keys of a mapping and
// the length of a list; an absent or empty value stays as it is, since it
// reveals nothing but its absence.
func hideAll(v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		if x == "" {
			return x
		}
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, el := range x {
			out[k] = hideAll(el)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, el := range x {
			out[i] = hideAll(el)
		}
		return out
	}
	return RedactedValue
}

// redactStrings applies RedactText to every string inside v.
func redactStrings(v any) any {
	switch x := v.(type) {
	case string:
		return RedactText(x)
	case map[string]any:
		for k, el := range x {
			x[k] = redactStrings(el)
		}
	case []any:
		for i, el := range x {
			x[i] = redactStrings(el)
		}
	}
	return v
}

// encoder turns the model into plain data.
type encoder struct {
	secrets map[string]bool
}

func (e encoder) encode(path string, v reflect.Value) any {
	if e.secrets[path] {
		return RedactedValue
	}
	switch v.Type() {
	case durationType():
		return time.Duration(v.Int()).String()
	case offDurationType():
		od := v.Interface().(OffDuration)
		if od.Off {
			return "off"
		}
		return od.Duration.String()
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		if v.Kind() == reflect.Interface {
			return e.plain(path, v.Elem().Interface(), false)
		}
		return e.encode(path, v.Elem())
	case reflect.Struct:
		out := map[string]any{}
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if key := f.Tag.Get("yaml"); key != "" && f.IsExported() {
				out[key] = e.encode(join(path, key), v.Field(i))
				if f.Tag.Get("secret") == "true" {
					out[key] = hideAll(out[key])
				}
			}
		}
		return out
	case reflect.Slice:
		if v.IsNil() {
			return nil
		}
		out := make([]any, v.Len())
		for i := range v.Len() {
			out[i] = e.encode(index(path, i), v.Index(i))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return nil
		}
		settings := strings.HasSuffix(path, "settings")
		out := make(map[string]any, v.Len())
		iter := v.MapRange()
		for iter.Next() {
			k := iter.Key().String()
			p := join(path, k)
			if iter.Value().Kind() == reflect.Interface {
				out[k] = e.plain(p, iter.Value().Interface(), settings && sensitiveKey(k))
			} else {
				out[k] = e.encode(p, iter.Value())
			}
		}
		return out
	}
	return v.Interface()
}

// plain copies settings data, hiding secrets and sensitive keys.
func (e encoder) plain(path string, v any, hide bool) any {
	if e.secrets[path] || (hide && v != nil) {
		return RedactedValue
	}
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, el := range x {
			out[k] = e.plain(join(path, k), el, sensitiveKey(k))
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, el := range x {
			out[i] = e.plain(index(path, i), el, hide)
		}
		return out
	}
	return v
}

// sensitiveKey reports whether a settings key names a credential.
func sensitiveKey(k string) bool {
	k = strings.ToLower(k)
	for _, s := range []string{"password", "secret", "token", "api_key", "apikey", "private_key", "credential"} {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}
