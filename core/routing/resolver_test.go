package routing

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/google/go-cmp/cmp"
)

var testBindings = []Binding{
	{ID: "bind-acme", Address: "q.acme"},
	{ID: "bind-globex", Address: "q.globex"},
	{ID: "bind-default", Address: "q.default"},
}

func plan(id string) []ports.DispatchPlan {
	for _, b := range testBindings {
		if b.ID == id {
			return []ports.DispatchPlan{{BindingID: b.ID, Address: b.Address}}
		}
	}
	panic(id)
}

func envWith(headers map[string]any, payload string) *messaging.Envelope {
	env := messaging.NewEnvelope("orders.created", []byte(payload))
	for k, v := range headers {
		env.Headers[k] = v
	}
	return env
}

func mustResolver(t *testing.T, spec ResolverSpec, opts ...Option) ports.DestinationResolver {
	t.Helper()
	r, err := NewResolver(spec, testBindings, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

type resolveCase struct {
	name    string
	env     *messaging.Envelope
	want    []ports.DispatchPlan
	wantErr string
}

func checkResolve(t *testing.T, r ports.DestinationResolver, cases []resolveCase) {
	t.Helper()
	for _, c := range cases {
		got, err := r.Resolve(context.Background(), c.env)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
			if fault.ClassOf(err) != fault.ClassPermanent || !errors.Is(err, fault.ErrNotFound) {
				t.Errorf("%s: error %v is not a permanent NOT_FOUND", c.name, err)
			}
		}
		if d := cmp.Diff(c.want, got); d != "" || gotErr != c.wantErr {
			t.Errorf("%s: plans (-want +got):\n%s\nerror %q, want %q", c.name, d, gotErr, c.wantErr)
		}
	}
}

func TestStaticResolver(t *testing.T) {
	checkResolve(t, mustResolver(t, ResolverSpec{}), []resolveCase{{"empty type is static", envWith(nil, ""), plan("bind-acme"), ""}})
	checkResolve(t, mustResolver(t, ResolverSpec{Type: TypeStatic}), []resolveCase{{"first binding", envWith(nil, ""), plan("bind-acme"), ""}})
	checkResolve(t, mustResolver(t, ResolverSpec{Type: TypeStatic, DefaultBinding: "bind-globex"}), []resolveCase{
		{"default binding", envWith(nil, ""), plan("bind-globex"), ""},
		{"nil envelope", nil, plan("bind-globex"), ""},
	})
}

func TestAllResolver(t *testing.T) {
	all := []ports.DispatchPlan{
		{BindingID: "bind-acme", Address: "q.acme"},
		{BindingID: "bind-globex", Address: "q.globex"},
		{BindingID: "bind-default", Address: "q.default"},
	}
	checkResolve(t, mustResolver(t, ResolverSpec{Type: TypeAll}), []resolveCase{
		{"fan out", envWith(nil, ""), all, ""},
		{"override narrows", envWith(map[string]any{messaging.HeaderRouteOverride: "bind-globex"}, ""), plan("bind-globex"), ""},
	})
}

func TestRulesResolver(t *testing.T) {
	spec := ResolverSpec{
		Type:           TypeRules,
		DefaultBinding: "bind-default",
		Rules: []Rule{
			{BindingID: "bind-acme", Match: []Condition{{Field: "header.x-tenant", Operator: OpEq, Value: "acme"}}},
			{BindingID: "bind-globex", Match: []Condition{{Field: "$.priority", Operator: OpEq, Value: "high"}, {Field: "subject", Operator: OpPrefix, Value: "orders."}}},
			{BindingID: "bind-acme", Match: []Condition{{Field: "$.priority", Operator: OpEq, Value: "high"}}},
		},
	}
	checkResolve(t, mustResolver(t, spec), []resolveCase{
		{"first rule", envWith(map[string]any{"x-tenant": "acme"}, `{"priority":"high"}`), plan("bind-acme"), ""},
		{"payload rule", envWith(map[string]any{"x-tenant": "other"}, `{"priority":"high"}`), plan("bind-globex"), ""},
		{"default", envWith(nil, `{"priority":"low"}`), plan("bind-default"), ""},
		{"non-JSON falls to default", envWith(nil, `priority=high`), plan("bind-default"), ""},
	})

	noDefault := spec
	noDefault.DefaultBinding = ""
	checkResolve(t, mustResolver(t, noDefault), []resolveCase{
		{"no match", envWith(nil, `{}`), nil, "NOT_FOUND: resolver: no rule matched the message and no default_binding is set"},
	})

	catchAll := ResolverSpec{Type: TypeRules, Rules: []Rule{
		{BindingID: "bind-acme", Match: []Condition{{Field: "x-tenant", Operator: OpEq, Value: "acme"}}},
		{BindingID: "bind-globex"},
	}}
	checkResolve(t, mustResolver(t, catchAll), []resolveCase{
		{"catch-all", envWith(nil, ""), plan("bind-globex"), ""},
	})

	onlyDefault := ResolverSpec{Type: TypeRules, DefaultBinding: "bind-globex"}
	checkResolve(t, mustResolver(t, onlyDefault), []resolveCase{{"only default", envWith(nil, ""), plan("bind-globex"), ""}})
}

func TestHeaderMapResolver(t *testing.T) {
	spec := ResolverSpec{Type: TypeHeaderMap, HeaderKey: "x-tenant", HeaderMap: map[string]string{"acme": "bind-acme", "globex": "bind-globex", "7": "bind-globex"}}
	checkResolve(t, mustResolver(t, spec), []resolveCase{
		{"mapped", envWith(map[string]any{"x-tenant": "acme"}, ""), plan("bind-acme"), ""},
		{"bytes", envWith(map[string]any{"x-tenant": []byte("globex")}, ""), plan("bind-globex"), ""},
		{"integer", envWith(map[string]any{"x-tenant": 7}, ""), plan("bind-globex"), ""},
		{"unknown", envWith(map[string]any{"x-tenant": "initech"}, ""), nil, `NOT_FOUND: resolver: header "x-tenant" matches no header_map entry and no default_binding is set`},
		{"missing", envWith(nil, ""), nil, `NOT_FOUND: resolver: header "x-tenant" matches no header_map entry and no default_binding is set`},
		{"bool", envWith(map[string]any{"x-tenant": true}, ""), nil, `NOT_FOUND: resolver: header "x-tenant" matches no header_map entry and no default_binding is set`},
	})
	spec.DefaultBinding = "bind-default"
	checkResolve(t, mustResolver(t, spec), []resolveCase{
		{"unknown uses default", envWith(map[string]any{"x-tenant": "initech"}, ""), plan("bind-default"), ""},
		{"missing uses default", envWith(nil, ""), plan("bind-default"), ""},
	})
}

func TestResolverValidation(t *testing.T) {
	cond := func(op Operator) []Condition { return []Condition{{Field: "x", Operator: op, Value: "v"}} }
	cases := []struct {
		name     string
		spec     ResolverSpec
		bindings []Binding
		want     []string
	}{
		{"invalid type", ResolverSpec{Type: "x"}, testBindings,
			[]string{`resolver.type "x" is invalid; must be one of: rules, header_map, all, static`}},
		{"unknown default", ResolverSpec{Type: TypeStatic, DefaultBinding: "x"}, testBindings,
			[]string{`resolver.default_binding "x" not found in route bindings`}},
		{"header_map without key or entries", ResolverSpec{Type: TypeHeaderMap}, testBindings,
			[]string{"resolver.header_key is required for header_map type", "resolver.header_map must have at least one entry"}},
		{"header_map unknown binding", ResolverSpec{Type: TypeHeaderMap, HeaderKey: "k", HeaderMap: map[string]string{"x": "y", "a": "bind-acme", "b": "z"}}, testBindings,
			[]string{`resolver.header_map["b"] references unknown binding "z"`, `resolver.header_map["x"] references unknown binding "y"`}},
		{"rules empty", ResolverSpec{Type: TypeRules}, testBindings,
			[]string{`resolver type "rules" requires at least one rule or a default_binding`}},
		{"rule unknown binding", ResolverSpec{Type: TypeRules, Rules: []Rule{{BindingID: "bind-acme"}, {BindingID: "x"}}}, testBindings,
			[]string{`resolver.rules[1]: binding_id "x" not found in route bindings`}},
		{"rule without binding", ResolverSpec{Type: TypeRules, Rules: []Rule{{}}}, testBindings,
			[]string{`resolver.rules[0]: binding_id is required`}},
		{"rule conditions", ResolverSpec{Type: TypeRules, Rules: []Rule{
			{BindingID: "bind-acme", Match: cond(OpEq)},
			{BindingID: "bind-acme", Match: cond(OpEq)},
			{BindingID: "bind-acme", Match: []Condition{{Field: "x", Operator: "foo"}, {Operator: OpEq}, {Field: "s", Operator: OpRegex, Value: "("}}},
		}}, testBindings,
			[]string{
				`resolver.rules[2].match[0]: operator "foo" is invalid`,
				`resolver.rules[2].match[1]: field is required`,
				"resolver.rules[2].match[2]: invalid regex pattern: error parsing regexp: missing closing ): `(`",
			}},
		{"everything at once", ResolverSpec{Type: TypeRules, DefaultBinding: "nope", Rules: []Rule{{BindingID: "x", Match: cond("bad")}}}, testBindings,
			[]string{
				`resolver.default_binding "nope" not found in route bindings`,
				`resolver.rules[0]: binding_id "x" not found in route bindings`,
				`resolver.rules[0].match[0]: operator "bad" is invalid`,
			}},
		{"no bindings", ResolverSpec{}, nil,
			[]string{"route has no bindings; a resolver needs at least one"}},
		{"bad bindings", ResolverSpec{Type: TypeAll}, []Binding{{ID: "a"}, {}, {ID: "a"}},
			[]string{`bindings[1]: id is required`, `bindings[2]: duplicate binding id "a"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := NewResolver(c.spec, c.bindings)
			if r != nil {
				t.Error("resolver returned with an error")
			}
			var want []string
			for _, w := range c.want {
				want = append(want, "INVALID_CONFIG: "+w)
			}
			if d := cmp.Diff(want, errorTexts(err)); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
			if !errors.Is(err, fault.ErrInvalidConfig) {
				t.Errorf("%v is not INVALID_CONFIG", err)
			}
		})
	}
}

func TestRouteOverride(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	spec := ResolverSpec{Type: TypeRules, DefaultBinding: "bind-default", Rules: []Rule{
		{BindingID: "bind-acme", Match: []Condition{{Field: "x-tenant", Operator: OpEq, Value: "acme"}}},
	}}
	r := mustResolver(t, spec, WithLogger(log))
	ov := messaging.HeaderRouteOverride
	checkResolve(t, r, []resolveCase{
		{"honoured", envWith(map[string]any{ov: "bind-globex", "x-tenant": "acme"}, ""), plan("bind-globex"), ""},
		{"honoured as bytes", envWith(map[string]any{ov: []byte("bind-globex")}, ""), plan("bind-globex"), ""},
		{"unknown binding ignored", envWith(map[string]any{ov: "bind-evil", "x-tenant": "acme"}, ""), plan("bind-acme"), ""},
		{"not a string ignored", envWith(map[string]any{ov: 42}, ""), plan("bind-default"), ""},
		{"empty ignored", envWith(map[string]any{ov: ""}, ""), plan("bind-default"), ""},
		{"other spelling is not the override", envWith(map[string]any{"X-Bridge.Route-Override": "bind-globex"}, ""), plan("bind-default"), ""},
	})
	out := logs.String()
	for _, want := range []string{"level=WARN", "route override references unknown binding", "override=bind-evil", "override_type=int"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "\n") != 2 {
		t.Errorf("want exactly two warnings, got:\n%s", out)
	}

	hm := mustResolver(t, ResolverSpec{Type: TypeHeaderMap, HeaderKey: "k", HeaderMap: map[string]string{"a": "bind-acme"}}, WithLogger(log))
	st := mustResolver(t, ResolverSpec{}, WithLogger(log))
	for _, r := range []ports.DestinationResolver{hm, st} {
		checkResolve(t, r, []resolveCase{{"override on every type", envWith(map[string]any{ov: "bind-default"}, ""), plan("bind-default"), ""}})
	}
}

func TestOverrideLogIsBounded(t *testing.T) {
	var logs bytes.Buffer
	r := mustResolver(t, ResolverSpec{}, WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	if _, err := r.Resolve(context.Background(), envWith(map[string]any{messaging.HeaderRouteOverride: strings.Repeat("x", 10000)}, "")); err != nil {
		t.Fatal(err)
	}
	if logs.Len() > 400 {
		t.Errorf("log line of %d bytes", logs.Len())
	}
}

func TestPlansAreSharedAndCapped(t *testing.T) {
	r := mustResolver(t, ResolverSpec{Type: TypeAll})
	env := envWith(nil, "")
	a, _ := r.Resolve(context.Background(), env)
	b, _ := r.Resolve(context.Background(), env)
	if &a[0] != &b[0] {
		t.Error("plans are not precomputed")
	}
	one := mustResolver(t, ResolverSpec{Type: TypeStatic})
	p, _ := one.Resolve(context.Background(), env)
	if cap(p) != 1 {
		t.Errorf("single plan slice has capacity %d; an append could overwrite a neighbour", cap(p))
	}
}

func TestResolveConcurrently(t *testing.T) {
	spec := ResolverSpec{Type: TypeRules, DefaultBinding: "bind-default", Rules: []Rule{
		{BindingID: "bind-acme", Match: []Condition{{Field: "$.tenant", Operator: OpEq, Value: "acme"}}},
		{BindingID: "bind-globex", Match: []Condition{{Field: "$.tenant", Operator: OpRegex, Value: "^glo"}}},
	}}
	r := mustResolver(t, spec)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tenants := []string{"acme", "globex", "other"}
			wants := []string{"bind-acme", "bind-globex", "bind-default"}
			for i := range 200 {
				k := (i + g) % 3
				env := envWith(nil, `{"tenant":"`+tenants[k]+`"}`)
				p, err := r.Resolve(context.Background(), env)
				if err != nil || p[0].BindingID != wants[k] {
					t.Errorf("resolve %s: %v %v", tenants[k], p, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}
