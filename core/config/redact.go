package config

import (
	"reflect"
	"strings"
	"time"
)

// RedactedValue replaces hidden values in Redacted.
const RedactedValue = "<redacted>"

// Redacted returns the configuration as plain data (maps, lists, strings,
// numbers, booleans; durations as strings such as "30s") for the admin API.
// Hidden behind "<redacted>" are: the API keys, every value that came from
// a ${env:} or ${file:} reference, and every plugin setting whose key
// contains password, secret, token, api_key, private_key or credential.
func (f *File) Redacted() map[string]any {
	e := encoder{secrets: f.secrets}
	m, _ := e.encode("", reflect.ValueOf(f).Elem()).(map[string]any)
	if h, ok := m["http"].(map[string]any); ok {
		for _, k := range []string{"admin_api_key", "monitor_api_key"} {
			if s, _ := h[k].(string); s != "" {
				h[k] = RedactedValue
			}
		}
	}
	return m
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
