package config

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// secretFS serves one secret file and records every read.
type secretFS struct {
	files map[string]string
	reads []string
}

func (s *secretFS) read(name string) ([]byte, error) {
	s.reads = append(s.reads, name)
	if v, ok := s.files[name]; ok {
		return []byte(v), nil
	}
	return nil, fs.ErrNotExist
}

// TestPostedDocumentRefusesReferencesOutsideTheAllowList parses a document
// as one posted to the admin API: a reference the allow-list does not name
// is a problem naming it, and neither the file nor the variable is read;
// a listed one resolves.
func TestPostedDocumentRefusesReferencesOutsideTheAllowList(t *testing.T) {
	doc := func(ref string) string {
		return baseYAML + "  monitor_api_key: \"" + ref + "\"\n"
	}
	env := []string{"SHADOW=env-secret-value-123", "ALLOWED=allowed-monitor-key-0123"}
	tests := []struct {
		name      string
		ref       string
		allowed   []string
		wantProb  string // a problem at http.monitor_api_key containing it; "" for none
		wantReads []string
		wantKey   string
	}{
		{"file refused by default", "${file:/etc/shadow}", nil,
			`secret ${file:/etc/shadow}: references in a posted document are refused unless http.posted_config_refs of the configuration file lists "file:/etc/shadow"`, nil, ""},
		{"env refused by default", "${env:SHADOW}", nil, `lists "env:SHADOW"`, nil, ""},
		{"another file than the listed one", "${file:/etc/shadow}", []string{"file:/run/secrets/key"}, `lists "file:/etc/shadow"`, nil, ""},
		{"a path that only resolves to the listed one", "${file:/run/secrets/../secrets/key}", []string{"file:/run/secrets/key"}, "refused", nil, ""},
		{"listed file", "${file:/run/secrets/key}", []string{"file:/run/secrets/key"}, "", []string{"/run/secrets/key"}, "file-monitor-key-0123456"},
		{"listed env", "${env:ALLOWED}", []string{"env:ALLOWED"}, "", nil, "allowed-monitor-key-0123"},
		{"escaped reference is text", "$${file:/etc/shadow}", nil, "", nil, "${file:/etc/shadow}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sfs := &secretFS{files: map[string]string{"/etc/shadow": "root:hash", "/run/secrets/key": "file-monitor-key-0123456\n"}}
			f, err := Parse([]byte(doc(tt.ref)), WithEnv(env), WithReadFile(sfs.read), WithAllowedRefs(tt.allowed))
			if diff := cmp.Diff(tt.wantReads, sfs.reads); diff != "" {
				t.Errorf("files read (-want +got):\n%s", diff)
			}
			if tt.wantProb == "" {
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				if f.HTTP.MonitorAPIKey != tt.wantKey {
					t.Errorf("monitor key %q, want %q", f.HTTP.MonitorAPIKey, tt.wantKey)
				}
				return
			}
			var ps Problems
			if !errors.As(err, &ps) || len(ps) != 1 || ps[0].Path != "http.monitor_api_key" || !strings.Contains(ps[0].Message, tt.wantProb) {
				t.Fatalf("Parse error = %v; want one problem at http.monitor_api_key containing %q", err, tt.wantProb)
			}
			if strings.Contains(err.Error(), "root:hash") || strings.Contains(err.Error(), "env-secret-value") {
				t.Errorf("problem leaks a value: %v", err)
			}
		})
	}
}

// TestProblemsNeverEchoAResolvedSecret puts resolved values where a
// message would quote them (a listen address, an enum, a duration, a
// setting checked by a plugin) and checks that no problem, warning or
// Scrub output holds the value.
func TestProblemsNeverEchoAResolvedSecret(t *testing.T) {
	const (
		envSecret  = "env-secret-value-123"
		fileSecret = "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1::/usr/sbin:/usr/sbin/nologin"
	)
	sfs := &secretFS{files: map[string]string{"/etc/passwd": fileSecret + "\n"}}
	opts := []Option{WithEnv([]string{"S=" + envSecret}), WithReadFile(sfs.read)}
	tests := []struct {
		name, yaml string
	}{
		{"listen address", strings.Replace(baseYAML, "admin_addr: 127.0.0.1:8080", `admin_addr: "${env:S}"`, 1)},
		{"listen address from a file", strings.Replace(baseYAML, "admin_addr: 127.0.0.1:8080", `admin_addr: "${file:/etc/passwd}"`, 1)},
		{"enum", strings.Replace(baseYAML, "bridge: {id: b}", `bridge: {id: b, deployment: "${file:/etc/passwd}"}`, 1)},
		{"inside other text", strings.Replace(baseYAML, "admin_addr: 127.0.0.1:8080", `admin_addr: "x${env:S}y"`, 1)},
		{"duration", strings.Replace(baseYAML, "bridge: {id: b}", `bridge: {id: b, shutdown_timeout: "${file:/etc/passwd}"}`, 1)},
	}
	pluginCheck := func(f *File) []Problem {
		// A plugin's own check quoting the value it refuses.
		return []Problem{{Path: "bridge.id", Message: fmt.Sprintf("plugin says %q and %v is wrong", f.Bridge.ID, f.HTTP.AdminAddr)}}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var all strings.Builder
			f, err := Parse([]byte(tt.yaml), opts...)
			if err != nil {
				all.WriteString(err.Error())
			} else {
				warns, err := f.Validate(pluginCheck)
				if err == nil {
					t.Fatal("Validate accepted the document")
				}
				all.WriteString(err.Error())
				for _, w := range warns {
					all.WriteString(w.String())
				}
				all.WriteString(f.Scrub("built with " + f.HTTP.AdminAddr + " and " + fmt.Sprintf("%q", f.Bridge.Deployment)))
			}
			for _, v := range []string{envSecret, "root:x:0:0", "/usr/sbin/nologin", `root:x:0:0:root:/root:/bin/bash\n`} {
				if strings.Contains(all.String(), v) {
					t.Errorf("messages leak %q:\n%s", v, all.String())
				}
			}
		})
	}
}

// TestPostedConfigRefsAndOverlapValidation checks the entries of
// posted_config_refs and the sign of api_key_overlap.
func TestPostedConfigRefsAndOverlapValidation(t *testing.T) {
	f := base(t)
	f.HTTP.PostedConfigRefs = []string{"env:FOO", "file:/run/secrets/x", "file:relative", "vault:x", "env:", "FOO"}
	f.HTTP.APIKeyOverlap = -1
	f.Stores.Lease = nil
	_, err := f.Validate()
	var ps Problems
	if !errors.As(err, &ps) {
		t.Fatalf("Validate = %v", err)
	}
	var paths []string
	for _, p := range ps {
		paths = append(paths, p.Path)
	}
	want := []string{"http.api_key_overlap", "http.posted_config_refs[2]", "http.posted_config_refs[3]", "http.posted_config_refs[4]", "http.posted_config_refs[5]"}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("problem paths (-want +got):\n%s", diff)
	}
}
