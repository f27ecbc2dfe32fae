package amqp091

import (
	"fmt"
	"math"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// toTable converts configuration or envelope values to an AMQP field
// table. Integers become int64 (unsigned ones that do not fit fail),
// nested maps become tables and slices become arrays. Values AMQP cannot
// carry fail with an error naming the key.
func toTable(m map[string]any) (amqp.Table, error) {
	if m == nil {
		return nil, nil
	}
	t := make(amqp.Table, len(m))
	for k, v := range m {
		fv, err := toField(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		t[k] = fv
	}
	return t, nil
}

func toField(v any) (any, error) {
	switch x := v.(type) {
	case nil, bool, string, []byte, int8, int16, int32, int64, float32, float64, time.Time, amqp.Decimal, uint8, uint16, uint32:
		return x, nil
	case int:
		return int64(x), nil
	case uint:
		return unsignedField(uint64(x))
	case uint64:
		return unsignedField(x)
	case time.Duration:
		return x.String(), nil
	case amqp.Table:
		return toTable(x)
	case map[string]any:
		return toTable(x)
	case map[string]string:
		t := make(amqp.Table, len(x))
		for k, s := range x {
			t[k] = s
		}
		return t, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			fe, err := toField(e)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			out[i] = fe
		}
		return out, nil
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out, nil
	case fmt.Stringer:
		return x.String(), nil
	default:
		return nil, fmt.Errorf("a %T cannot travel in an AMQP table", v)
	}
}

func unsignedField(u uint64) (any, error) {
	if u > math.MaxInt64 {
		return nil, fmt.Errorf("%d does not fit a signed 64-bit AMQP integer", u)
	}
	return int64(u), nil
}

// fromTable converts an AMQP table to plain Go values: nested tables
// become map[string]any, arrays []any and decimals their string form, so
// the rest of the bridge sees the types it knows.
func fromTable(t amqp.Table) map[string]any {
	out := make(map[string]any, len(t))
	for k, v := range t {
		out[k] = fromField(v)
	}
	return out
}

func fromField(v any) any {
	switch x := v.(type) {
	case amqp.Table:
		return fromTable(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = fromField(e)
		}
		return out
	case amqp.Decimal:
		return decimalString(x)
	default:
		return v
	}
}

func decimalString(d amqp.Decimal) string {
	if d.Scale == 0 {
		return fmt.Sprint(d.Value)
	}
	return fmt.Sprintf("%.*f", int(d.Scale), float64(d.Value)/math.Pow10(int(d.Scale)))
}
