package messaging

import (
	"encoding/json"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

func TestNewEnvelopeCopiesPayload(t *testing.T) {
	tests := []struct {
		name    string
		payload []byte
		want    []byte
	}{
		{name: "bytes", payload: []byte("hello"), want: []byte("hello")},
		{name: "empty", payload: []byte{}, want: []byte{}},
		{name: "nil", payload: nil, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := time.Now().UTC()
			e := NewEnvelope("orders.created", tt.payload)
			for i := range tt.payload {
				tt.payload[i] = 'X'
			}
			if diff := cmp.Diff(tt.want, e.PayloadView()); diff != "" {
				t.Errorf("payload after caller mutation (-want +got):\n%s", diff)
			}
			if e.PayloadLen() != len(tt.want) {
				t.Errorf("PayloadLen = %d, want %d", e.PayloadLen(), len(tt.want))
			}
			if e.Subject != "orders.created" {
				t.Errorf("Subject = %q", e.Subject)
			}
			if e.Headers == nil || len(e.Headers) != 0 {
				t.Errorf("Headers = %#v, want empty non-nil map", e.Headers)
			}
			if e.CreatedAt.Before(before) || e.CreatedAt.Location() != time.UTC {
				t.Errorf("CreatedAt = %v, want UTC at or after %v", e.CreatedAt, before)
			}
			if e.HasExpiry() {
				t.Error("new envelope has an expiry")
			}
			if !uuidPattern.MatchString(e.ID) {
				t.Errorf("ID %q is not a v4 UUID", e.ID)
			}
		})
	}
}

func TestNewEnvelopeFromImmutablePayloadAdopts(t *testing.T) {
	p := []byte("adopted")
	e := NewEnvelopeFromImmutablePayload("s", p)
	if unsafe.SliceData(e.PayloadView()) != unsafe.SliceData(p) {
		t.Fatal("payload was copied, want adopted backing array")
	}
	p[0] = 'A'
	if diff := cmp.Diff([]byte("Adopted"), e.PayloadView()); diff != "" {
		t.Errorf("adopted payload does not reflect the shared array (-want +got):\n%s", diff)
	}
}

func TestPayloadReturnsCopy(t *testing.T) {
	e := NewEnvelope("s", []byte("abc"))
	got := e.Payload()
	if diff := cmp.Diff([]byte("abc"), got); diff != "" {
		t.Fatalf("Payload (-want +got):\n%s", diff)
	}
	got[0] = 'Z'
	if diff := cmp.Diff([]byte("abc"), e.PayloadView()); diff != "" {
		t.Errorf("envelope changed after mutating Payload() result (-want +got):\n%s", diff)
	}
	if unsafe.SliceData(got) == unsafe.SliceData(e.PayloadView()) {
		t.Error("Payload shares the backing array")
	}
	if p := (&Envelope{}).Payload(); p != nil {
		t.Errorf("Payload of empty envelope = %#v, want nil", p)
	}
}

func TestPayloadViewAndSetPayloadShare(t *testing.T) {
	e := NewEnvelope("s", []byte("abc"))
	v1, v2 := e.PayloadView(), e.PayloadView()
	if &v1[0] != &v2[0] {
		t.Error("PayloadView returned different backing arrays")
	}
	np := []byte("new-payload")
	e.SetPayload(np)
	if &e.PayloadView()[0] != &np[0] {
		t.Error("SetPayload copied the slice, want adopted")
	}
	if e.PayloadLen() != len(np) {
		t.Errorf("PayloadLen = %d, want %d", e.PayloadLen(), len(np))
	}
	e.SetPayload(nil)
	if e.PayloadView() != nil || e.PayloadLen() != 0 {
		t.Errorf("after SetPayload(nil): view %#v len %d", e.PayloadView(), e.PayloadLen())
	}
}

func richHeaders() map[string]any {
	return map[string]any{
		"str":    "v",
		"int":    42,
		"bool":   true,
		"bytes":  []byte("raw"),
		"strs":   []string{"a", "b"},
		"smap":   map[string]string{"k": "v"},
		"list":   []any{"x", []byte("y"), map[string]any{"deep": []string{"z"}}},
		"nested": map[string]any{"inner": map[string]any{"b": []byte("q")}, "l": []any{1, "two"}},
		"nilmap": map[string]any(nil),
		"nilany": []any(nil),
		"nilstr": []string(nil),
		"nilb":   []byte(nil),
		"nilsm":  map[string]string(nil),
	}
}

// mutateAll changes every mutable value reachable from h in place.
func mutateAll(h map[string]any) {
	h["bytes"].([]byte)[0] = 'X'
	h["strs"].([]string)[0] = "X"
	h["smap"].(map[string]string)["k"] = "X"
	h["smap"].(map[string]string)["added"] = "X"
	l := h["list"].([]any)
	l[0] = "X"
	l[1].([]byte)[0] = 'X'
	l[2].(map[string]any)["deep"].([]string)[0] = "X"
	n := h["nested"].(map[string]any)
	n["inner"].(map[string]any)["b"].([]byte)[0] = 'X'
	n["inner"].(map[string]any)["added"] = 1
	n["l"].([]any)[1] = "X"
	h["top"] = "added"
}

func TestCloneDeepCopiesHeaders(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(orig, clone *Envelope)
	}{
		{name: "mutate original", mutate: func(o, _ *Envelope) { mutateAll(o.Headers) }},
		{name: "mutate clone", mutate: func(_, c *Envelope) { mutateAll(c.Headers) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := NewEnvelope("s", []byte("payload"))
			e.Headers = richHeaders()
			e.ExpiresAt = e.CreatedAt.Add(time.Minute)
			c := e.Clone()
			if diff := cmp.Diff(e.Headers, c.Headers); diff != "" {
				t.Fatalf("clone headers differ (-orig +clone):\n%s", diff)
			}
			if c.ID != e.ID || c.Subject != e.Subject || !c.CreatedAt.Equal(e.CreatedAt) || !c.ExpiresAt.Equal(e.ExpiresAt) {
				t.Errorf("scalar fields not copied: %+v vs %+v", c, e)
			}
			tt.mutate(e, c)
			// The untouched side must still equal a fresh richHeaders().
			untouched := c.Headers
			if tt.name == "mutate clone" {
				untouched = e.Headers
			}
			if diff := cmp.Diff(richHeaders(), untouched); diff != "" {
				t.Errorf("mutation leaked across clone (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCloneSharesPayloadBacking(t *testing.T) {
	e := NewEnvelope("s", []byte("payload"))
	c := e.Clone()
	if unsafe.SliceData(c.PayloadView()) != unsafe.SliceData(e.PayloadView()) {
		t.Error("Clone copied the payload, want shared backing")
	}
	c.SetPayload([]byte("other"))
	if diff := cmp.Diff([]byte("payload"), e.PayloadView()); diff != "" {
		t.Errorf("SetPayload on clone changed original (-want +got):\n%s", diff)
	}
}

func TestClonePreservesJSONShape(t *testing.T) {
	e := &Envelope{Headers: richHeaders()}
	want, err := json.Marshal(e.Headers)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(e.Clone().Headers)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("clone serialises differently (-orig +clone):\n%s", diff)
	}
}

func TestCloneNilHeaders(t *testing.T) {
	c := (&Envelope{ID: "x"}).Clone()
	if c.Headers == nil || len(c.Headers) != 0 {
		t.Errorf("Clone of nil headers = %#v, want empty non-nil map", c.Headers)
	}
	if got := CloneHeaders(nil); got == nil || len(got) != 0 {
		t.Errorf("CloneHeaders(nil) = %#v, want empty non-nil map", got)
	}
}

func TestExpiry(t *testing.T) {
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name        string
		expiresAt   time.Time
		now         time.Time
		wantHas     bool
		wantExpired bool
		wantTTL     time.Duration
	}{
		{name: "no expiry", now: at, wantTTL: -1},
		{name: "no expiry far future", now: at.Add(1000 * time.Hour), wantTTL: -1},
		{name: "long before", expiresAt: at, now: at.Add(-time.Hour), wantHas: true, wantTTL: time.Hour},
		{name: "one ns before", expiresAt: at, now: at.Add(-time.Nanosecond), wantHas: true, wantTTL: time.Nanosecond},
		{name: "exactly at", expiresAt: at, now: at, wantHas: true, wantExpired: true, wantTTL: 0},
		{name: "one ns after", expiresAt: at, now: at.Add(time.Nanosecond), wantHas: true, wantExpired: true, wantTTL: 0},
		{name: "long after", expiresAt: at, now: at.Add(time.Hour), wantHas: true, wantExpired: true, wantTTL: 0},
		{name: "other zone same instant", expiresAt: at, now: at.In(time.FixedZone("X", 3600)), wantHas: true, wantExpired: true, wantTTL: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &Envelope{ExpiresAt: tt.expiresAt}
			got := [3]any{e.HasExpiry(), e.IsExpired(tt.now), e.RemainingTTL(tt.now)}
			want := [3]any{tt.wantHas, tt.wantExpired, tt.wantTTL}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("[HasExpiry IsExpired RemainingTTL] (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHeaderString(t *testing.T) {
	e := &Envelope{Headers: map[string]any{
		"s": "text", "b": []byte("bytes"), "empty": "", "n": 7, "nilv": nil, "strs": []string{"a"},
	}}
	type res struct {
		V  string
		OK bool
	}
	tests := []struct {
		name string
		want res
	}{
		{"s", res{"text", true}},
		{"b", res{"bytes", true}},
		{"empty", res{"", true}},
		{"n", res{"", false}},
		{"nilv", res{"", false}},
		{"strs", res{"", false}},
		{"missing", res{"", false}},
	}
	for _, tt := range tests {
		v, ok := e.HeaderString(tt.name)
		if diff := cmp.Diff(tt.want, res{v, ok}); diff != "" {
			t.Errorf("HeaderString(%q) (-want +got):\n%s", tt.name, diff)
		}
	}
	if v, ok := (&Envelope{}).HeaderString("s"); v != "" || ok {
		t.Errorf("HeaderString on nil headers = %q, %v", v, ok)
	}
}

func TestSetHeader(t *testing.T) {
	tests := []struct {
		name    string
		initial map[string]any
		want    map[string]any
	}{
		{name: "nil map", initial: nil, want: map[string]any{"k": "v"}},
		{name: "existing map", initial: map[string]any{"a": 1}, want: map[string]any{"a": 1, "k": "v"}},
		{name: "overwrite", initial: map[string]any{"k": "old"}, want: map[string]any{"k": "v"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &Envelope{Headers: tt.initial}
			e.SetHeader("k", "v")
			if diff := cmp.Diff(tt.want, e.Headers); diff != "" {
				t.Errorf("headers (-want +got):\n%s", diff)
			}
		})
	}
}
