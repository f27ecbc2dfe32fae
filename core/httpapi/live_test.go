package httpapi

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/ports"
)

// countingDLQ counts the Count queries the live view makes.
type countingDLQ struct {
	ports.DLQStore
	counts atomic.Int64
}

func (c *countingDLQ) Count(ctx context.Context, f ports.DLQFilter) (int, error) {
	c.counts.Add(1)
	return c.DLQStore.Count(ctx, f)
}

// nextDLQEvent reads the stream until a dlq event arrives.
func nextDLQEvent(t *testing.T, st *stream) string {
	t.Helper()
	for {
		it, ok := st.next(t)
		if !ok {
			t.Fatal("stream ended")
		}
		if it.name == eventDLQ {
			return it.data
		}
	}
}

// Several open consoles share one reading of the stores, and the stores
// are read again only when the bridge dead-lettered a message or an
// operator changed the DLQ, not on every tick: on DynamoDB each count is
// a billed query.
func TestLiveViewReadsTheStoresOnlyWhenTheyChanged(t *testing.T) {
	mem := seedDLQ(t, 1)
	dlq := &countingDLQ{DLQStore: mem}
	var dead, scrapes atomic.Int64
	metrics := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		scrapes.Add(1)
		_, _ = io.WriteString(w, "# TYPE gobridge_route_messages_dead_lettered_total counter\n"+
			fmt.Sprintf("gobridge_route_messages_dead_lettered_total{route=\"a\",category=\"permanent\"} %d\n", dead.Load()))
	})
	b := &readinessBackend{fakeBackend: &fakeBackend{dlq: dlq, metrics: metrics,
		routes: []RouteStatus{{ID: "a", State: RouteRunning, Role: RoleStandalone}}}}
	b.detail.Store("")
	s, url := liveServer(t, b, 0)
	s.storeEvery = time.Hour

	streams := []*stream{openStream(t, url, adminKey), openStream(t, url, adminKey)}
	for i, st := range streams {
		if got := nextDLQEvent(t, st); got != `{"configured":true,"depth":1,"by_route":{"a":1}}` {
			t.Fatalf("stream %d opened with %s", i, got)
		}
	}
	// One reading for both streams: the total and route a.
	if n := dlq.counts.Load(); n != 2 {
		t.Errorf("after two streams opened: %d DLQ counts, want 2", n)
	}
	// Many ticks with nothing dead-lettered read the metrics, not the DLQ.
	start := scrapes.Load()
	eventually(t, "20 more ticks", func() bool { return scrapes.Load() >= start+20 })
	if n := dlq.counts.Load(); n != 2 {
		t.Errorf("after 20 more ticks: %d DLQ counts, want still 2", n)
	}

	// The bridge dead-letters a message: the counter moves, the DLQ is
	// read again once and both consoles hear of it.
	if err := mem.Write(t.Context(), ports.DLQEntry{RouteID: "a", Category: ports.DLQPermanent}); err != nil {
		t.Fatal(err)
	}
	dead.Add(1)
	want := `{"configured":true,"depth":2,"by_route":{"a":2}}`
	for i, st := range streams {
		if diff := cmp.Diff(want, nextDLQEvent(t, st)); diff != "" {
			t.Errorf("stream %d after a dead letter (-want +got):\n%s", i, diff)
		}
	}
	if n := dlq.counts.Load(); n != 4 {
		t.Errorf("after one dead letter: %d DLQ counts, want 4", n)
	}

	// An operator deletes an entry through the API: no counter moves, but
	// the consoles see it at the next tick.
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodDelete, url+"/api/v1/admin/dlq/"+mem.ids()[0], nil)
	req.Header.Set("Authorization", "Bearer "+adminKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("delete: status %d", resp.StatusCode)
	}
	want = `{"configured":true,"depth":1,"by_route":{"a":1}}`
	for i, st := range streams {
		if diff := cmp.Diff(want, nextDLQEvent(t, st)); diff != "" {
			t.Errorf("stream %d after a delete (-want +got):\n%s", i, diff)
		}
	}

	// The readiness changes (a session lost its broker): deep health, and
	// with it the DLQ, is read again.
	before := dlq.counts.Load()
	b.detail.Store("session s: broker unreachable")
	eventually(t, "a DLQ count after the readiness changed", func() bool { return dlq.counts.Load() >= before+2 })
}

// readinessBackend is a fake backend whose readiness detail a test may
// change while the server reads it.
type readinessBackend struct {
	*fakeBackend
	detail atomic.Value // string
}

func (b *readinessBackend) Readiness(context.Context) Readiness {
	d := b.detail.Load().(string)
	if d == "" {
		return Readiness{Level: LevelFull, Role: RoleStandalone}
	}
	return Readiness{Level: LevelConnected, Role: RoleStandalone, Detail: d}
}
