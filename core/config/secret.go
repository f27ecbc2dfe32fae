package config

import (
	"fmt"
	"os"
	"regexp"
	"strings"
)

// secretPattern matches ${env:NAME} and ${file:/path}.
func secretPattern() *regexp.Regexp {
	return regexp.MustCompile(`\$\{(env|file):([^}]*)\}`)
}

// resolveSecrets replaces every secret reference in the string values of
// the raw tree. A value holding a reference becomes a secret text, so its
// value is never printed and Redacted hides it. "$${" stands for a literal
// "${".
func resolveSecrets(node any, path string, o *options, probs *problems) any {
	switch x := node.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) { // problems in a stable order
			x[k] = resolveSecrets(x[k], join(path, k), o, probs)
		}
		return x
	case []any:
		for i, v := range x {
			x[i] = resolveSecrets(v, index(path, i), o, probs)
		}
		return x
	case string:
		checkForms(x, path, "", o, probs)
		if s, ok := resolveString(x, path, o, probs); ok {
			return text{raw: s, secret: true}
		}
		return strings.ReplaceAll(x, "$${", "${")
	case text:
		checkForms(x.raw, path, x.env, o, probs)
		if s, ok := resolveString(x.raw, path, o, probs); ok {
			return text{raw: s, secret: true, env: x.env}
		}
		x.raw = strings.ReplaceAll(x.raw, "$${", "${")
		return x
	}
	return node
}

// resolveString expands the references in s; ok is false when s holds
// none.
func resolveString(s, path string, o *options, probs *problems) (string, bool) {
	if !strings.Contains(s, "${") {
		return "", false
	}
	const escaped = "\x00dollar-brace\x00"
	s = strings.ReplaceAll(s, "$${", escaped)
	found := false
	secretRef := secretPattern()
	out := secretRef.ReplaceAllStringFunc(s, func(ref string) string {
		found = true
		m := secretRef.FindStringSubmatch(ref)
		if !o.refAllowed(m[1], m[2]) {
			probs.addf(path, "secret %s: references in a posted document are refused unless http.posted_config_refs of the configuration file lists %q", ref, m[1]+":"+m[2])
			return ""
		}
		v, err := o.secret(m[1], m[2])
		if err != nil {
			probs.addf(path, "secret %s: %v", ref, err)
			return ""
		}
		o.resolved = append(o.resolved, v)
		return v
	})
	if !found {
		return "", false
	}
	return strings.ReplaceAll(out, escaped, "${"), true
}

// secret looks one reference up. Errors name the reference, never a value.
func (o *options) secret(kind, name string) (string, error) {
	if name == "" {
		return "", fmt.Errorf("empty %s name", kind)
	}
	switch kind {
	case "env":
		for i := len(o.environ) - 1; i >= 0; i-- {
			if k, v, ok := strings.Cut(o.environ[i], "="); ok && k == name {
				return v, nil
			}
		}
		return "", fmt.Errorf("environment variable %s is not set", name)
	default:
		b, err := o.readFile(name)
		if err != nil {
			return "", fmt.Errorf("cannot read the file: %w", err)
		}
		s := string(b)
		s = strings.TrimSuffix(s, "\n")
		s = strings.TrimSuffix(s, "\r")
		return s, nil
	}
}

// defaultReadFile reads from the operating system's file system.
func defaultReadFile(name string) ([]byte, error) {
	return os.ReadFile(name)
}
