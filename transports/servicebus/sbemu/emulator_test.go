package sbemu

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus"
	"github.com/gobridge-oss/gobridge/core/itest"
	"github.com/google/go-cmp/cmp"
)

func TestValidateNamesEveryProblem(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
		want []string // substrings of the error; none means valid
	}{
		{"valid", Options{Entities: []Entity{{Name: "q"}, {Name: "t", Subscriptions: []Subscription{{Name: "s"}}}}}, nil},
		{"empty names", Options{Entities: []Entity{{}, {Name: "t", Subscriptions: []Subscription{{}}}}},
			[]string{"Entities[0].Name: empty", "Entities[1].Subscriptions[0].Name: empty"}},
		{"duplicates", Options{Entities: []Entity{{Name: "q"}, {Name: "Q"}, {Name: "t", Subscriptions: []Subscription{{Name: "s"}, {Name: "s"}}}}},
			[]string{"Entities[1].Name", "Entities[2].Subscriptions[1].Name"}},
		{"reserved characters", Options{Entities: []Entity{{Name: "a/b"}, {Name: "$x"}}},
			[]string{"Entities[0].Name", "Entities[1].Name"}},
		{"queue settings on a topic", Options{Entities: []Entity{{Name: "t", RequiresSession: true, Subscriptions: []Subscription{{Name: "s"}}}}},
			[]string{"Entities[0]: LockDuration, MaxDeliveryCount and RequiresSession do nothing on a topic"}},
		{"limits", Options{MaxMessageSize: -1, Port: 70000, Entities: []Entity{{Name: "q", LockDuration: -time.Second, MaxDeliveryCount: -1}}},
			[]string{"Entities[0].LockDuration", "Entities[0].MaxDeliveryCount", "MaxMessageSize", "Port"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := validate(tc.opts)
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("validate: %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("validate: nil, want an error naming %v", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
		})
	}
}

func TestStartRefusesInvalidOptions(t *testing.T) {
	if _, err := Start(context.Background(), Options{Entities: []Entity{{}}}); err == nil {
		t.Fatal("Start with an unnamed entity succeeded")
	}
}

func TestCloseStopsTheProcessAndIsIdempotent(t *testing.T) {
	e := StartForTest(t, Options{Entities: []Entity{{Name: "q"}}})
	if err := e.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case <-e.Done():
	default:
		t.Fatal("Done not closed after Close")
	}
	if err := e.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if c, err := net.DialTimeout("tcp", e.Addr(), time.Second); err == nil {
		_ = c.Close()
		t.Errorf("%s still accepts connections after Close", e.Addr())
	}
}

func TestKillThenRestartOnTheSamePort(t *testing.T) {
	// A port from outside the ephemeral range: while the emulator is
	// down, the client's reconnect attempts draw local ports from that
	// range and could take (or connect to themselves on) one the kernel
	// handed out before.
	opts := Options{Port: itest.FreePort(t), Entities: []Entity{{Name: "q"}}}
	e := StartForTest(t, opts)
	c := newClient(t, e)
	ctx := testCtx(t)
	s := newSender(t, c, "q")
	sendBodies(ctx, t, s, "before")
	if err := e.Kill(); err != nil {
		t.Fatalf("Kill: %v", err)
	}
	<-e.Done()
	e2 := StartForTest(t, opts)
	if e2.Addr() != e.Addr() {
		t.Fatalf("restarted on %s, want %s", e2.Addr(), e.Addr())
	}
	// The same client recovers its connection and links.
	sendBodies(ctx, t, s, "after")
	r := newReceiver(t, c, "q", &azservicebus.ReceiverOptions{ReceiveMode: azservicebus.ReceiveModeReceiveAndDelete})
	if got := bodies(receiveN(ctx, t, r, 1)); got[0] != "after" {
		t.Errorf("after restart got %q, want only \"after\" (the emulator keeps nothing)", got)
	}
}

func TestConfigAppliesDefaults(t *testing.T) {
	dir := t.TempDir()
	opts := Options{Port: 1234, Entities: []Entity{
		{Name: "q", LockDuration: 1500 * time.Millisecond, MaxDeliveryCount: 2, RequiresSession: true},
		{Name: "t", Subscriptions: []Subscription{{Name: "s"}, {Name: "x", LockDuration: time.Second, MaxDeliveryCount: 1, RequiresSession: true}}},
	}}
	if err := writeFiles(dir, opts); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got wireConfig
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	def := func(name string) wireEntity {
		return wireEntity{Name: name, LockMS: 30000, MaxDeliveryCount: 10}
	}
	want := wireConfig{MaxMessageSize: DefaultMaxMessageSize, Port: 1234, Entities: []wireEntity{
		{Name: "q", LockMS: 1500, MaxDeliveryCount: 2, RequiresSession: true},
		{Name: "t", LockMS: 30000, MaxDeliveryCount: 10, Subscriptions: []wireEntity{
			def("s"), {Name: "x", LockMS: 1000, MaxDeliveryCount: 1, RequiresSession: true}}},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("config.json (-want +got):\n%s", diff)
	}
	for _, f := range []string{"sbemu.py", "broker.py", "loop.py", "store.py", "mgmt.py", "message.py", "codec.py", "consumer.py"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("program file %s not written: %v", f, err)
		}
	}
}

func TestHandlerBugIsLoggedAndTheEmulatorKeepsServing(t *testing.T) {
	if !Available() {
		t.Skip("python3-qpid-proton missing")
	}
	lines := make(chan string, 100)
	ctx := testCtx(t)
	e, err := Start(ctx, Options{Entities: []Entity{{Name: "q"}}, Logf: func(format string, args ...any) {
		lines <- fmt.Sprintf(format, args...)
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = e.Close() }()
	if _, err := e.request(ctx, "sbemu:raise", map[string]any{}); err == nil {
		t.Fatal("sbemu:raise succeeded, want the failed link's error")
	}
	select {
	case l := <-lines:
		if !strings.Contains(l, InternalErrorMarker) || !strings.Contains(l, "RuntimeError") {
			t.Errorf("log line %q, want the internal error with its traceback on one line", l)
		}
	case <-ctx.Done():
		t.Fatal("no log line for the internal error")
	}
	if _, err := e.Counts(ctx, "q"); err != nil {
		t.Fatalf("Counts after the internal error: %v", err)
	}
}
