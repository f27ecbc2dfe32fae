package config

import (
	"regexp"
	"strings"
)

var (
	// anyRefPattern matches every ${...}, supported or not.
	anyRefPattern = regexp.MustCompile(`\$\{([^}]*)\}`)
	// identPattern is a variable name as a shell or Compose writes it.
	identPattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	// shellVarPattern is a whole value that looks like $NAME.
	shellVarPattern = regexp.MustCompile(`^\$[A-Z_][A-Z0-9_]*$`)
)

// checkForms reports the ${...} in s that are not ${env:} or ${file:}
// references: the loader would keep them as written, so a copied
// ${INGRESS_KEY} would silently become a public bearer key. A whole value
// such as $MQTT_PASSWORD is valid text but most likely meant a variable,
// which is a warning. from names the override variable that set s, if any.
func checkForms(s, path, from string, o *options, probs *problems) {
	if shellVarPattern.MatchString(s) {
		o.warns = append(o.warns, Warning{Path: path, Message: s +
			" is used as written: variables are not expanded; write ${env:" + s[1:] + "} to read the environment variable"})
		return
	}
	if !strings.Contains(s, "${") {
		return
	}
	for _, m := range anyRefPattern.FindAllStringSubmatch(strings.ReplaceAll(s, "$${", ""), -1) {
		inner := m[1]
		if strings.HasPrefix(inner, "env:") || strings.HasPrefix(inner, "file:") {
			continue
		}
		name := "NAME"
		if identPattern.MatchString(inner) {
			name = inner
		}
		msg := m[0] + " is not a reference the loader resolves, so it would be used as written: write ${env:" + name +
			"} for an environment variable or ${file:PATH} for a file (and $${ for a literal ${)"
		if from != "" {
			msg = from + ": " + msg
		}
		probs.addf(path, "%s", msg)
	}
}
