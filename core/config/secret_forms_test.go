package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestUnsupportedReferenceForms: a value written like a shell or Compose
// variable is not expanded, so a copied ${INGRESS_KEY} would become a
// public key; the loader refuses it and names the form it supports.
func TestUnsupportedReferenceForms(t *testing.T) {
	yaml := `
bridge: {id: b}
receivers:
  - id: in
    type: http
    settings:
      bearer_keys: ["${INGRESS_KEY}"]
      literal: "$${NOT_A_REF}"
      mixed: "${env:A}-${B}"
      spaced: "${ env:A }"
senders:
  - id: out
    type: amqp091
    settings:
      url: amqp://bridge:${RABBIT_PASSWORD}@rabbit:5672/
      upper: ${ENV:A}
http:
  admin_api_key: ${GOBRIDGE_ADMIN_KEY}
`
	_, err := Parse([]byte(yaml), WithEnv([]string{"A=a-secret-value", "GOBRIDGE_BRIDGE__INSTANCE_ID=${HOST}"}))
	hint := func(ref, name string) string {
		return ref + " is not a reference the loader resolves, so it would be used as written: write ${env:" + name +
			"} for an environment variable or ${file:PATH} for a file (and $${ for a literal ${)"
	}
	generic := func(ref string) string {
		return ref + " is not a reference the loader resolves, so it would be used as written: write ${env:NAME} for an environment variable or ${file:PATH} for a file (and $${ for a literal ${)"
	}
	want := Problems{
		{"bridge.instance_id", "GOBRIDGE_BRIDGE__INSTANCE_ID: " + hint("${HOST}", "HOST")},
		{"receivers[0].settings.bearer_keys[0]", hint("${INGRESS_KEY}", "INGRESS_KEY")},
		{"receivers[0].settings.mixed", hint("${B}", "B")},
		{"receivers[0].settings.spaced", generic("${ env:A }")},
		{"senders[0].settings.upper", generic("${ENV:A}")},
		{"senders[0].settings.url", hint("${RABBIT_PASSWORD}", "RABBIT_PASSWORD")},
		{"http.admin_api_key", hint("${GOBRIDGE_ADMIN_KEY}", "GOBRIDGE_ADMIN_KEY")},
	}
	ps := problemsOf(t, err)
	if diff := cmp.Diff(want, ps); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if strings.Contains(ps.Error(), "a-secret-value") {
		t.Errorf("a problem leaks a resolved value: %s", ps.Error())
	}
}

// TestShellVariableLookalikeWarns: a whole value such as $MQTT_PASSWORD is
// valid text, but most likely meant a variable; Validate warns.
func TestShellVariableLookalikeWarns(t *testing.T) {
	f, err := Parse([]byte(baseYAML+`
telemetry: {log_level: info}
`), WithEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	g, err := Parse([]byte(strings.Replace(baseYAML, "  - {id: out, type: memory}\n",
		"  - {id: out, type: memory, settings: {password: $MQTT_PASSWORD, price: $5, note: \"costs $AB and more\"}}\n", 1)), WithEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	base, err := f.ValidateWith(preview)
	if err != nil {
		t.Fatal(err)
	}
	got, err := g.ValidateWith(preview)
	if err != nil {
		t.Fatal(err)
	}
	want := append(base, Warning{"senders[0].settings.password",
		"$MQTT_PASSWORD is used as written: variables are not expanded; write ${env:MQTT_PASSWORD} to read the environment variable"})
	sortWarnings(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}
