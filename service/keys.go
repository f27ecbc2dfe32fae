package service

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/gobridge-oss/gobridge/core/config"
	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/httpapi"
	"github.com/gobridge-oss/gobridge/core/registry"
)

// KeyRotator is what the bridge needs of the admin and monitor API to
// apply the API keys of a reload: httpapi.Server implements it.
type KeyRotator interface {
	RotateKeys(admin, monitor string, overlap time.Duration) error
}

// UseAPI tells the bridge which API server serves its keys, so that a
// reload applies changed keys to it. Call it once the server is built.
func (b *Service) UseAPI(api KeyRotator) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.api = api
}

// checkKeys refuses, before anything changes, a reload whose keys the API
// server would refuse. Callers hold mu.
func (b *Service) checkKeys(nf *config.File) error {
	if b.api == nil || nf.HTTP == nil {
		return nil
	}
	return httpapi.CheckKeys(nf.HTTP.AdminAPIKey, nf.HTTP.MonitorAPIKey)
}

// rotateKeys hands the keys of an applied reload to the API server. A
// file without an http block keeps the keys in force, as the listeners
// keep serving. Callers hold mu.
func (b *Service) rotateKeys(nf *config.File) {
	if b.api == nil || nf.HTTP == nil {
		return
	}
	h := nf.HTTP
	if err := b.api.RotateKeys(h.AdminAPIKey, h.MonitorAPIKey, h.APIKeyOverlap); err != nil {
		// checkKeys let these keys through, so this is a bug; the old
		// keys stay in force.
		b.log.Error("the reload's API keys were not applied", "err", err)
	}
}

// postedRefs is the allow-list of references for posted documents that a
// file read from disk names.
func postedRefs(f *config.File) []string {
	if f == nil || f.HTTP == nil {
		return nil
	}
	return slices.Clone(f.HTTP.PostedConfigRefs)
}

// refsChange refuses a posted document that changes the allow-list of
// posted references: only the operator's file may widen it. Callers hold
// mu.
func (b *Service) refsChange(nf *config.File) []config.Problem {
	if nf.HTTP == nil || slices.Equal(nf.HTTP.PostedConfigRefs, b.trustedRefs) {
		return nil
	}
	return []config.Problem{{Path: "http.posted_config_refs",
		Message: "a posted document cannot change this list; edit the configuration file and reload it (SIGHUP or a reload without a body)"}}
}

// PluginSchemas returns the settings schema of every plugin reg holds, by
// kind and type: the plugins argument of config.Schema and Redacted.
func PluginSchemas(reg *registry.Registry) map[string]map[string]json.RawMessage {
	out := map[string]map[string]json.RawMessage{}
	if reg == nil {
		return out
	}
	for _, k := range registry.Kinds() {
		m := map[string]json.RawMessage{}
		for _, typ := range reg.Types(k) {
			if f, ok := reg.Lookup(k, typ); ok {
				m[typ] = f.Schema()
			}
		}
		out[string(k)] = m
	}
	return out
}

// sanitize returns err with every value a reference of the files resolved
// to, and every URL credential, hidden from its text, keeping its code and
// class; err itself when there was nothing to hide.
func sanitize(err error, files ...*config.File) error {
	if err == nil {
		return nil
	}
	text := err.Error()
	clean := config.RedactText(text)
	for _, f := range files {
		clean = f.Scrub(clean)
	}
	if clean == text {
		return err
	}
	code := fault.CodeOf(err)
	return fault.NewWithClass(fault.ClassOf(err), code, strings.TrimPrefix(clean, string(code)+": "))
}
