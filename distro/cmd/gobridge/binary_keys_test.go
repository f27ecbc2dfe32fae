package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/gobridge-oss/gobridge/core/itest"
)

// statusWith calls an API path with key and returns the HTTP status.
func statusWith(t *testing.T, url, key string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode
}

// restartRequired reads /deephealth's restart_required with key.
func restartRequired(t *testing.T, p testPorts, key string) []string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/api/v1/monitor/deephealth", p.monitor), nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		RestartRequired []string `json:"restart_required"`
	}
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatalf("deephealth %d %s: %v", resp.StatusCode, raw, err)
	}
	return body.RestartRequired
}

// TestBinaryReloadRotatesTheAdminKey rotates the admin key by SIGHUP with
// no overlap (the old key is refused at once), then by an empty API reload
// with an overlap (both keys work); a changed listen address is reported
// by /deephealth as waiting for a restart, and no longer once reverted.
func TestBinaryReloadRotatesTheAdminKey(t *testing.T) {
	dir := t.TempDir()
	p := newPorts(t)
	cfgPath := filepath.Join(dir, "bridge.yaml")
	base := testConfig(p, "http://127.0.0.1:1/hook")
	write := func(doc string) {
		t.Helper()
		if err := os.WriteFile(cfgPath, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(base)
	pr, _ := startBinary(t, cfgPath, dir, p)
	status := fmt.Sprintf("http://127.0.0.1:%d/api/v1/admin/status", p.admin)

	// SIGHUP, no overlap: the new key works, the old one is refused.
	const second = "second-admin-key-0123456789"
	write(strings.Replace(base, "admin_api_key: "+testKey, "admin_api_key: "+second, 1))
	if err := pr.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitAdmin(t, func() bool { return statusWith(t, status, second) == http.StatusOK })
	if st := statusWith(t, status, testKey); st != http.StatusUnauthorized {
		t.Errorf("old key after a rotation without overlap: status %d, want 401", st)
	}
	if rr := restartRequired(t, p, second); len(rr) != 0 {
		t.Errorf("restart_required after a key rotation = %v, want none", rr)
	}

	// API reload re-reading the file, with an overlap: both keys work.
	const third = "third-admin-key-0123456789"
	write(strings.Replace(base, "admin_api_key: "+testKey, "admin_api_key: "+third+"\n  api_key_overlap: 1h", 1))
	req, _ := http.NewRequest(http.MethodPost, fmt.Sprintf("http://127.0.0.1:%d/api/v1/admin/reload", p.admin), nil)
	req.Header.Set("Authorization", "Bearer "+second)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("reload: %d %s", resp.StatusCode, raw)
	}
	for _, k := range []string{second, third} {
		if st := statusWith(t, status, k); st != http.StatusOK {
			t.Errorf("key %s during the overlap: status %d, want 200", k[:6], st)
		}
	}
	if st := statusWith(t, status, testKey); st != http.StatusUnauthorized {
		t.Errorf("the first key, retired without overlap: status %d, want 401", st)
	}

	// A new admin address needs a restart, and says so until reverted.
	moved := strings.Replace(base, "admin_api_key: "+testKey, "admin_api_key: "+third, 1)
	moved = strings.Replace(moved, fmt.Sprintf("admin_addr: \"127.0.0.1:%d\"", p.admin), fmt.Sprintf("admin_addr: \"127.0.0.1:%d\"", itest.FreePort(t)), 1)
	write(moved)
	if err := pr.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitAdmin(t, func() bool { return slices.Equal(restartRequired(t, p, third), []string{"http.admin_addr"}) })
	write(strings.Replace(base, "admin_api_key: "+testKey, "admin_api_key: "+third, 1))
	if err := pr.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitAdmin(t, func() bool { return len(restartRequired(t, p, third)) == 0 })
}
