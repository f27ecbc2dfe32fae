package config

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// text is a string that came from an environment override or a secret
// reference. Typed fields parse it; settings keep env values as YAML
// scalars and secrets as strings.
type text struct {
	raw    string
	secret bool
	env    string // the variable that set it, when from the environment
}

// decoder decodes the raw tree into the model, strictly, collecting every
// problem with its path.
type decoder struct {
	probs   *problems
	secrets map[string]bool
}

func durationType() reflect.Type    { return reflect.TypeFor[time.Duration]() }
func offDurationType() reflect.Type { return reflect.TypeFor[OffDuration]() }

// decode stores v, found at path, into dst.
func (d *decoder) decode(path string, v any, dst reflect.Value) {
	if v == nil {
		return // null or absent: keep the zero value
	}
	if t, ok := v.(text); ok && t.secret {
		d.secrets[path] = true
	}
	typ := dst.Type()
	switch {
	case typ == durationType():
		d.duration(path, v, dst)
		return
	case typ == offDurationType():
		if s, ok := stringOf(v); ok && s == "off" {
			dst.Set(reflect.ValueOf(OffDuration{Off: true}))
			return
		}
		d.duration(path, v, dst.Field(1))
		return
	case typ == reflect.TypeFor[any]():
		dst.Set(reflect.ValueOf(d.plain(path, v)))
		return
	case typ == reflect.TypeFor[map[string]any]():
		m, ok := d.plain(path, v).(map[string]any)
		if !ok {
			d.wrongType(path, "a mapping", v)
			return
		}
		dst.Set(reflect.ValueOf(m))
		return
	}
	switch typ.Kind() {
	case reflect.Pointer:
		elem := reflect.New(typ.Elem())
		d.decode(path, v, elem.Elem())
		dst.Set(elem)
	case reflect.Struct:
		d.structure(path, v, dst)
	case reflect.Slice:
		d.slice(path, v, dst)
	case reflect.Map:
		d.mapping(path, v, dst)
	case reflect.String:
		if s, ok := stringOf(v); ok {
			dst.SetString(s)
		} else {
			d.wrongType(path, "a string", v)
		}
	case reflect.Bool:
		d.boolean(path, v, dst)
	case reflect.Int:
		d.integer(path, v, dst)
	case reflect.Float64:
		d.float(path, v, dst)
	default:
		d.probs.addf(path, "cannot decode into %s", typ)
	}
}

func stringOf(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case text:
		return x.raw, true
	}
	return "", false
}

func (d *decoder) duration(path string, v any, dst reflect.Value) {
	s, ok := stringOf(v)
	if !ok {
		d.probs.addf(path, "invalid duration %q", d.show(v))
		return
	}
	dur, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		d.probs.addf(path, "invalid duration %q", d.show(v))
		return
	}
	dst.SetInt(int64(dur))
}

func (d *decoder) boolean(path string, v any, dst reflect.Value) {
	switch x := v.(type) {
	case bool:
		dst.SetBool(x)
		return
	case text:
		if b, err := strconv.ParseBool(x.raw); err == nil {
			dst.SetBool(b)
			return
		}
	}
	d.wrongType(path, "a boolean", v)
}

func (d *decoder) integer(path string, v any, dst reflect.Value) {
	switch x := v.(type) {
	case int:
		dst.SetInt(int64(x))
		return
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			dst.SetInt(int64(x))
			return
		}
	case text:
		if n, err := strconv.Atoi(strings.TrimSpace(x.raw)); err == nil {
			dst.SetInt(int64(n))
			return
		}
	}
	d.wrongType(path, "an integer", v)
}

func (d *decoder) float(path string, v any, dst reflect.Value) {
	switch x := v.(type) {
	case int:
		dst.SetFloat(float64(x))
		return
	case float64:
		dst.SetFloat(x)
		return
	case text:
		if f, err := strconv.ParseFloat(strings.TrimSpace(x.raw), 64); err == nil {
			dst.SetFloat(f)
			return
		}
	}
	d.wrongType(path, "a number", v)
}

// structured turns an environment value meant for a list or mapping into
// one by reading it as YAML flow syntax ("[a, b]", "{k: v}").
func structured(v any) any {
	t, ok := v.(text)
	if !ok || t.env == "" {
		return v
	}
	var out any
	if err := yaml.Unmarshal([]byte(t.raw), &out); err != nil {
		return v
	}
	return out
}

func (d *decoder) structure(path string, v any, dst reflect.Value) {
	m, ok := structured(v).(map[string]any)
	if !ok {
		d.wrongType(path, "a mapping", v)
		return
	}
	typ := dst.Type()
	known := map[string]bool{}
	for i := range typ.NumField() {
		f := typ.Field(i)
		key := f.Tag.Get("yaml")
		if key == "" || !f.IsExported() {
			continue
		}
		known[key] = true
		if val, ok := m[key]; ok {
			d.decode(join(path, key), val, dst.Field(i))
		}
	}
	for _, k := range sortedKeys(m) {
		if !known[k] {
			d.probs.addf(join(path, k), "unknown key")
		}
	}
}

func (d *decoder) slice(path string, v any, dst reflect.Value) {
	list, ok := structured(v).([]any)
	if !ok {
		d.wrongType(path, "a list", v)
		return
	}
	out := reflect.MakeSlice(dst.Type(), len(list), len(list))
	for i, e := range list {
		d.decode(index(path, i), e, out.Index(i))
	}
	dst.Set(out)
}

func (d *decoder) mapping(path string, v any, dst reflect.Value) {
	m, ok := structured(v).(map[string]any)
	if !ok {
		d.wrongType(path, "a mapping", v)
		return
	}
	out := reflect.MakeMapWithSize(dst.Type(), len(m))
	for _, k := range sortedKeys(m) {
		elem := reflect.New(dst.Type().Elem()).Elem()
		d.decode(join(path, k), m[k], elem)
		out.SetMapIndex(reflect.ValueOf(k), elem)
	}
	dst.Set(out)
}

// plain returns v as plain YAML data for settings and condition values:
// environment text becomes a YAML scalar, secrets stay strings.
func (d *decoder) plain(path string, v any) any {
	switch x := v.(type) {
	case text:
		if x.secret {
			d.secrets[path] = true
			return x.raw
		}
		var out any
		if err := yaml.Unmarshal([]byte(x.raw), &out); err != nil || out == nil {
			return x.raw
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = d.plain(join(path, k), e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = d.plain(index(path, i), e)
		}
		return out
	}
	return v
}

// wrongType reports a value of the wrong kind, without revealing secrets.
func (d *decoder) wrongType(path, want string, v any) {
	d.probs.addf(path, "expected %s, got %s", want, d.describe(v))
}

func (d *decoder) describe(v any) string {
	switch x := v.(type) {
	case text:
		if x.secret {
			return "a secret that does not fit"
		}
		return fmt.Sprintf("%q (from %s)", x.raw, x.env)
	case string:
		return fmt.Sprintf("string %q", x)
	case map[string]any:
		return "a mapping"
	case []any:
		return "a list"
	case bool:
		return fmt.Sprintf("boolean %t", x)
	case int, float64, uint64:
		return fmt.Sprintf("number %v", x)
	}
	return fmt.Sprintf("%T", v)
}

// show renders v for a message, hiding secrets.
func (d *decoder) show(v any) string {
	if t, ok := v.(text); ok {
		if t.secret {
			return "<redacted>"
		}
		return t.raw
	}
	return fmt.Sprint(v)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
