package registry

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
)

// Defaulter is implemented by config types that fill their zero fields
// with defaults; Decode calls it after decoding.
type Defaulter[C any] interface {
	WithDefaults() C
}

// Validator is implemented by config types that check themselves; Decode
// calls it after applying defaults.
type Validator interface {
	Validate() error
}

// decodeSettings decodes settings into a new C, strictly: keys are matched
// by the fields' yaml tags, unknown keys and wrong types are errors, and
// durations may be written as strings such as "30s".
func decodeSettings[C any](settings map[string]any) (C, error) {
	var cfg C
	dec, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{
		TagName:     "yaml",
		ErrorUnused: true,
		Result:      &cfg,
		DecodeHook:  mapstructure.ComposeDecodeHookFunc(durationHook),
	})
	if err != nil {
		return cfg, err
	}
	if err := dec.Decode(settings); err != nil {
		return cfg, tidy(err)
	}
	if d, ok := any(cfg).(Defaulter[C]); ok {
		cfg = d.WithDefaults()
	}
	if v, ok := any(cfg).(Validator); ok {
		if err := v.Validate(); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

var durationType = reflect.TypeFor[time.Duration]()

// durationHook reads a time.Duration from a string ("1m30s") or a whole
// number of nanoseconds, and says which value it could not read.
func durationHook(from, to reflect.Type, data any) (any, error) {
	if to != durationType {
		return data, nil
	}
	switch v := data.(type) {
	case string:
		d, err := time.ParseDuration(v)
		if err != nil {
			return nil, fmt.Errorf("invalid duration %q", v)
		}
		return d, nil
	case time.Duration:
		return v, nil
	case int, int64, uint64, float64:
		return data, nil
	}
	return nil, fmt.Errorf("invalid duration %v: write it as a string such as \"30s\"", data)
}

// tidy rewrites mapstructure's messages, which quote keys and join many
// problems in one error, into plain sentences, one per line.
func tidy(err error) error {
	var msgs []string
	var walk func(error)
	walk = func(e error) {
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, c := range j.Unwrap() {
				walk(c)
			}
			return
		}
		msgs = append(msgs, strings.ReplaceAll(e.Error(), "'", ""))
	}
	walk(err)
	if len(msgs) == 0 {
		return err
	}
	return errors.New(strings.Join(msgs, "; "))
}
