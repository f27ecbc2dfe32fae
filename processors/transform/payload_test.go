package transform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/telemetry"
	"github.com/google/go-cmp/cmp"
)

func TestInvalidPayloads(t *testing.T) {
	payloads := []string{
		"", "   ", "hello", "{", `{"a":1`, `{"a":1}{"b":2}`, `{"a":1} x`, `{"a":01}`, `{"a":1.}`, `{"a":-}`,
		`{"a":.5}`, `{"a":1e}`, `{"a":tru}`, `{"a":nul}`, `{"a" 1}`, `{"a":1,}`, `{a:1}`, `{"a":"\x"}`,
		`{"a":"\u12"}`, "{\"a\":\"tab\there\"}", `{"a":[1,2}`, `{"a":{"b":1]}`, `[1,]`, `{,}`, "\xef\xbb\xbf{}",
		"\x00", `{"a":"unterminated}`, `{"a":"x\`, strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	}
	for _, drop := range []bool{false, true} {
		tr := mustNew(t, Config{Name: "t", DropUnmapped: drop, Mappings: []FieldMapping{SimpleMapping("$.a", "b")}})
		for _, p := range payloads {
			o := process(t, tr, p)
			if o.Code != "INVALID_PAYLOAD" || o.Next || o.Payload != p || !strings.HasPrefix(o.Err, `INVALID_PAYLOAD: transform "t": payload is not valid JSON`) {
				t.Errorf("drop=%v payload %.40q: outcome %+v", drop, p, o)
			}
			if json.Valid([]byte(p)) {
				t.Errorf("payload %.40q is valid for encoding/json", p)
			}
		}
	}
}

func TestDeepNesting(t *testing.T) {
	// encoding/json accepts 10000 levels of nesting and no more; so do we.
	deep := strings.Repeat(`{"a":`, 9999) + "1" + strings.Repeat("}", 9999)
	doc := `{"x":` + deep + `,"y":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `}`
	tr := mustNew(t, Config{Mappings: []FieldMapping{SimpleMapping("$.x.a.a.a", "z")}})
	o := process(t, tr, doc)
	if o.Code != "" {
		t.Fatalf("10000 levels refused: %s", o.Err)
	}
	if !json.Valid([]byte(o.Payload)) {
		t.Fatal("output is not valid JSON")
	}
	tooDeep := `{"x":[` + deep + `]}`
	if o := process(t, tr, tooDeep); o.Code != "INVALID_PAYLOAD" || json.Valid([]byte(tooDeep)) {
		t.Errorf("10001 levels: code %q, encoding/json valid %v", o.Code, json.Valid([]byte(tooDeep)))
	}
}

func TestRootMustBeObjectToKeepFields(t *testing.T) {
	m := []FieldMapping{SimpleMapping("$[0]", "first")}
	for _, p := range []string{`[1,2]`, `"s"`, `12`, `true`, `null`} {
		o := process(t, mustNew(t, Config{Name: "t", Mappings: m}), p)
		if o.Code != "SCHEMA_VIOLATION" || !strings.Contains(o.Err, "not an object") {
			t.Errorf("root %s kept: outcome %+v", p, o)
		}
	}
	o := process(t, mustNew(t, Config{DropUnmapped: true, Mappings: m}), `[1,2]`)
	if diff := cmp.Diff(ok(`{"first":1}`), o); diff != "" {
		t.Errorf("root array, drop unmapped (-want +got):\n%s", diff)
	}
}

func TestPayloadCap(t *testing.T) {
	m := []FieldMapping{SimpleMapping("$.a", "b")}
	p := `{"a":"` + strings.Repeat("x", 90) + `"}`
	tests := []struct {
		cap  int
		want string
	}{{len(p), ""}, {len(p) - 1, "PAYLOAD_TOO_LARGE"}, {0, ""}, {-1, ""}}
	for _, tt := range tests {
		o := process(t, mustNew(t, Config{Name: "capped", MaxPayloadBytes: tt.cap, Mappings: m}), p)
		if o.Code != tt.want {
			t.Errorf("cap %d: code %q, want %q", tt.cap, o.Code, tt.want)
		}
		if tt.want != "" && (o.Next || o.Payload != p || !strings.Contains(o.Err, `transform "capped": payload exceeds`)) {
			t.Errorf("cap %d: outcome %+v", tt.cap, o)
		}
	}
	huge := `{"a":"` + strings.Repeat("x", DefaultMaxPayloadBytes) + `"}`
	if o := process(t, mustNew(t, Config{Mappings: m}), huge); o.Code != "PAYLOAD_TOO_LARGE" {
		t.Errorf("default cap: code %q", o.Code)
	}
	err := mustNew(t, Config{MaxPayloadBytes: 4, Mappings: m}).Process(context.Background(), messaging.NewEnvelope("s", []byte(p)), nil)
	if !errors.Is(err, fault.ErrPayloadTooLarge) || fault.ClassOf(err) != fault.ClassRejected {
		t.Errorf("err = %v", err)
	}
}

func TestEnvelopeHandling(t *testing.T) {
	tr := mustNew(t, Config{Mappings: []FieldMapping{TransformedMapping("$.a", "a", TransformString)}})
	orig := []byte(`{"a":1}`)
	env := messaging.NewEnvelopeFromImmutablePayload("subj", orig)
	env.Headers["h"] = "v"
	env.Headers[messaging.HeaderContentType] = "application/json"
	var seen []byte
	err := tr.Process(context.Background(), env, func(_ context.Context, e *messaging.Envelope) error {
		seen = e.PayloadView()
		return errors.New("downstream")
	})
	if err == nil || err.Error() != "downstream" {
		t.Errorf("err = %v, want the error of next", err)
	}
	if string(seen) != `{"a":"1"}` || string(orig) != `{"a":1}` {
		t.Errorf("next saw %s; original buffer now %s", seen, orig)
	}
	want := map[string]any{"h": "v", messaging.HeaderContentType: "application/json"}
	if diff := cmp.Diff(want, env.Headers); diff != "" || env.Subject != "subj" {
		t.Errorf("headers or subject changed (-want +got):\n%s", diff)
	}
	// The installed payload is not shared with the processor's buffers.
	first := env.PayloadView()
	other := messaging.NewEnvelope("s", []byte(`{"a":22222222}`))
	if err := tr.Process(context.Background(), other, func(context.Context, *messaging.Envelope) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if string(first) != `{"a":"1"}` {
		t.Errorf("an earlier output changed to %s", first)
	}

	if err := tr.Process(context.Background(), nil, nil); fault.ClassOf(err) != fault.ClassRejected {
		t.Errorf("nil envelope: err = %v", err)
	}
}

func TestMetrics(t *testing.T) {
	mem := telemetry.NewMemory()
	tr := mustNew(t, Config{Name: "m", Mappings: []FieldMapping{TransformedMapping("$.a", "a", TransformInt)}}, WithMeter(mem), WithLogger(nil), nil)
	process(t, tr, `{"a":"1"}`)
	process(t, tr, `{"a":"x"}`) // skipped mapping
	process(t, tr, `not json`)
	got := map[string]float64{}
	for _, n := range []string{MetricTransformed, MetricRejected, MetricSkipped} {
		got[n] = mem.Value(n, "m")
	}
	want := map[string]float64{MetricTransformed: 2, MetricRejected: 1, MetricSkipped: 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("metrics (-want +got):\n%s", diff)
	}
}

func TestConcurrentUse(t *testing.T) {
	tr := mustNew(t, Config{Mappings: []FieldMapping{
		TransformedMapping("$.n", "s", TransformString), SimpleMapping("$.pad", "copy.pad"),
	}})
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				pad := strings.Repeat("p", (g*i)%300)
				in := fmt.Sprintf(`{"n":%d,"pad":"%s"}`, g*1000+i, pad)
				want := fmt.Sprintf(`{"n":%d,"pad":"%s","s":"%d","copy":{"pad":"%s"}}`, g*1000+i, pad, g*1000+i, pad)
				env := messaging.NewEnvelope("s", []byte(in))
				if err := tr.Process(context.Background(), env, func(context.Context, *messaging.Envelope) error { return nil }); err != nil {
					errs <- err
					return
				}
				if got := string(env.PayloadView()); got != want {
					errs <- fmt.Errorf("got %s, want %s", got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestLargePayloadBuffersAreNotKept(t *testing.T) {
	tr := mustNew(t, Config{Mappings: []FieldMapping{TransformedMapping("$.a", "b", TransformBase64Encode)}})
	big := `{"a":"` + strings.Repeat("x", 200<<10) + `"}`
	if o := process(t, tr, big); o.Code != "" {
		t.Fatal(o.Err)
	}
	st := tr.states.Get().(*state)
	if cap(st.buf) > 64<<10 || cap(st.scratch) > 64<<10 || cap(st.tmp) > 64<<10 {
		t.Errorf("pooled state kept %d/%d/%d bytes", cap(st.buf), cap(st.scratch), cap(st.tmp))
	}
}
