package servicetest

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/config"
)

// rotation is one RotateKeys call.
type rotation struct {
	Admin, Monitor string
	Overlap        time.Duration
}

// fakeAPI records the keys a reload hands over.
type fakeAPI struct{ calls []rotation }

func (f *fakeAPI) RotateKeys(admin, monitor string, overlap time.Duration) error {
	f.calls = append(f.calls, rotation{admin, monitor, overlap})
	return nil
}

// TestReloadHandsTheKeysToTheAPIAndReportsWhatWaitsForARestart reloads
// documents that change the keys, the overlap and a listen address, and
// checks what reaches the API server and what deephealth reports.
func TestReloadHandsTheKeysToTheAPIAndReportsWhatWaitsForARestart(t *testing.T) {
	boot := bootDoc(t)
	b := newIdleBridge(t, boot)
	api := &fakeAPI{}
	b.UseAPI(api)
	reload := func(doc string) ([]string, error) {
		t.Helper()
		f, err := config.Parse([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		rep, err := b.ReloadFile(t.Context(), f)
		var paths []string
		for _, w := range rep.RestartRequired {
			paths = append(paths, w.Path)
		}
		return paths, err
	}
	deep := func() []string { return b.DeepHealth(t.Context()).RestartRequired }

	rotated := strings.Replace(boot, "admin_api_key: admin-key-0123456789", "admin_api_key: admin-key-two-0123456789\n  monitor_api_key: monitor-key-0123456789\n  api_key_overlap: 5m", 1)
	if rr, err := reload(rotated); err != nil || len(rr) != 0 || len(deep()) != 0 {
		t.Fatalf("key rotation: restart_required %v, deephealth %v, err %v; want none", rr, deep(), err)
	}
	addr := boot[strings.Index(boot, "admin_addr: ")+len("admin_addr: ") : strings.Index(boot, "\n  monitor_addr")]
	moved := strings.Replace(rotated, "admin_addr: "+addr, `admin_addr: "127.0.0.1:1"`, 1)
	if rr, err := reload(moved); err != nil || !cmp.Equal(rr, []string{"http.admin_addr"}) || !cmp.Equal(deep(), []string{"http.admin_addr"}) {
		t.Fatalf("moved admin_addr: restart_required %v, deephealth %v, err %v; want http.admin_addr", rr, deep(), err)
	}
	if rr, err := reload(rotated); err != nil || len(rr) != 0 || len(deep()) != 0 {
		t.Fatalf("address put back: restart_required %v, deephealth %v, err %v; want none", rr, deep(), err)
	}
	short := strings.Replace(rotated, "monitor_api_key: monitor-key-0123456789", "monitor_api_key: short", 1)
	if _, err := reload(short); err == nil {
		t.Fatal("a reload with a key the API refuses was applied")
	}
	noHTTP := boot[:strings.Index(boot, "http:")]
	if rr, err := reload(noHTTP); err != nil || !cmp.Equal(rr, []string{"http"}) {
		t.Fatalf("http block removed: restart_required %v, err %v; want http", rr, err)
	}
	want := []rotation{
		{"admin-key-two-0123456789", "monitor-key-0123456789", 5 * time.Minute},
		{"admin-key-two-0123456789", "monitor-key-0123456789", 5 * time.Minute},
		{"admin-key-two-0123456789", "monitor-key-0123456789", 5 * time.Minute},
	}
	if diff := cmp.Diff(want, api.calls); diff != "" {
		t.Errorf("keys handed to the API (-want +got):\n%s", diff)
	}
	if got := b.Status(t.Context()).ConfigGeneration; got != 5 {
		t.Errorf("generation %d, want 5 (four applied reloads)", got)
	}
}
