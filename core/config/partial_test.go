package config

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// checkAll is what a validate command does: a partial parse, then every
// rule and check on what decoded, then both rounds' problems together.
func checkAll(t *testing.T, yaml string, env []string, checks ...Check) (*File, error) {
	t.Helper()
	f, perr := Parse([]byte(yaml), WithEnv(env), WithPartial())
	if f == nil {
		return nil, perr
	}
	_, verr := f.Validate(checks...)
	return f, JoinProblems(perr, verr)
}

func TestPartialReportsEveryRoundAtOnce(t *testing.T) {
	settings := func(f *File) []Problem {
		if f.Receivers[0].Settings["listen"] == "bad" {
			return []Problem{{Path: "receivers[0].settings", Message: "listen: bad address"}}
		}
		return nil
	}
	tests := []struct {
		name string
		yaml string
		env  []string
		want Problems
	}{
		{
			name: "unknown key, reference and plugin setting",
			yaml: `
bridge: {id: b}
receivers: [{id: in, type: http, settings: {listen: bad}}]
senders: [{id: out, type: sse}]
bindings: [{id: b1, sender_id: out, address: a}]
stores: {dlq: {type: memory}}
routes: [{id: r, receiver_id: inn, bindings: [b1], polcy: {}}]
`,
			want: Problems{
				{"receivers[0].settings", "listen: bad address"},
				{"routes[0].polcy", "unknown key"},
				{"routes[0].receiver_id", `receiver_id "inn" not found in receivers`},
			},
		},
		{
			// A value that did not decode is left empty; the rule that
			// wants it set would only repeat the problem at its path.
			name: "a wrong type is not also reported missing",
			yaml: `
bridge: {id: [b]}
receivers: [{id: in, type: http}]
senders: [{id: out, type: sse}]
bindings: [{id: b1, sender_id: out, address: a}]
stores: {dlq: {type: memory}}
routes: [{id: {x: 1}, receiver_id: in, bindings: [b1]}]
`,
			want: Problems{
				{"bridge.id", "expected a string, got a list"},
				{"routes[0].id", "expected a string, got a mapping"},
			},
		},
		{
			name: "an unset secret is reported once",
			yaml: `
bridge: {id: b}
receivers: [{id: in, type: http, settings: {token: "${env:NOPE}"}}]
senders: [{id: out, type: sse}]
bindings: [{id: b1, sender_id: out, address: a}]
stores: {dlq: {type: memory}}
routes: [{id: r, receiver_id: in, bindings: [b1], extra: 1}]
`,
			want: Problems{
				{"receivers[0].settings.token", "secret ${env:NOPE}: environment variable NOPE is not set"},
				{"routes[0].extra", "unknown key"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := checkAll(t, tt.yaml, tt.env, settings)
			if diff := cmp.Diff(tt.want, problemsOf(t, err)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPartialFileAndPlainParse(t *testing.T) {
	const doc = "bridge: {id: b, idd: x}\nroutes: [{id: r}]\n"
	if f, err := Parse([]byte(doc), WithEnv(nil)); f != nil || err == nil {
		t.Fatalf("without WithPartial: file %v, error %v; want no file and the problems", f, err)
	}
	f, err := Parse([]byte(doc), WithEnv(nil), WithPartial())
	if err == nil || f == nil {
		t.Fatalf("with WithPartial: file %v, error %v; want both", f, err)
	}
	if f.Bridge.ID != "b" || len(f.Routes) != 1 || f.Routes[0].Policy.MaxInFlight == 0 {
		t.Errorf("partial file lacks what decoded or its defaults: %+v", f)
	}
	if f, err := Parse([]byte("bridge: ["), WithPartial()); f != nil || err == nil {
		t.Errorf("YAML that does not parse: file %v, error %v; want no file", f, err)
	}
}

func TestJoinProblems(t *testing.T) {
	io := errors.New("read failed")
	ps := func(p ...Problem) error { out := Problems(p); return &out }
	tests := []struct {
		name string
		errs []error
		want error
	}{
		{"none", []error{nil, nil}, nil},
		{"one", []error{nil, ps(Problem{"a", "x"})}, ps(Problem{"a", "x"})},
		{"not problems wins", []error{io, ps(Problem{"a", "x"})}, io},
		{"sorted, under a path dropped, a sibling kept", []error{
			ps(Problem{"routes[0].policy", "expected a mapping, got a list"}),
			ps(Problem{"bridge.id", "bridge.id is required"},
				Problem{"routes[0].policy.max_in_flight", "must be positive"},
				Problem{"routes[0].policy", "is wrong"},
				Problem{"routes[0].policyx", "kept"}),
		}, ps(Problem{"bridge.id", "bridge.id is required"},
			Problem{"routes[0].policy", "expected a mapping, got a list"},
			Problem{"routes[0].policyx", "kept"})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := JoinProblems(tt.errs...)
			if tt.want == nil || got == nil {
				if got != tt.want {
					t.Fatalf("got %v, want %v", got, tt.want)
				}
				return
			}
			if !errors.As(tt.want, new(Problems)) {
				if got != tt.want {
					t.Fatalf("got %v, want %v", got, tt.want)
				}
				return
			}
			if diff := cmp.Diff(problemsOf(t, tt.want), problemsOf(t, got)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}
