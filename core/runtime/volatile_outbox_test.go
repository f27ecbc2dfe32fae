package runtime_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

// volatileOutbox is a fakeOutbox that says its contents die with the
// process, as the memory store's do, and reports each finished Claim.
type volatileOutbox struct {
	*fakeOutbox
	claimed chan struct{}
}

func (volatileOutbox) Volatile() bool { return true }

func (o volatileOutbox) Claim(ctx context.Context, part string, tok ports.LeaseToken, limit int) ([]ports.OutboxRecord, error) {
	recs, err := o.fakeOutbox.Claim(ctx, part, tok, limit)
	select {
	case o.claimed <- struct{}{}:
	default:
	}
	return recs, err
}

// syncBuffer is a log sink safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestStopDrainsAMemoryOutbox: a backlog in an outbox kept in memory dies
// with the process, so at stop the drainers deliver it before returning
// rather than leaving it for a next start; what cannot be delivered in
// time is reported as lost.
func TestStopDrainsAMemoryOutbox(t *testing.T) {
	for _, tc := range []struct {
		name     string
		fail     bool
		wantSent int
		wantLog  string
	}{
		{name: "target up: the backlog is delivered", wantSent: 50},
		{name: "target down: the loss is reported", fail: true, wantLog: "50 records"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ob := volatileOutbox{newFakeOutbox(), make(chan struct{}, 1)}
			snd := memtransport.NewSender(memtransport.SenderOptions{Fail: func(ports.OutboundMessage) error {
				if tc.fail {
					return fault.ErrConnectionLost
				}
				return nil
			}})
			var logs syncBuffer
			// One poll an hour: once the first (empty) poll is over, only
			// the stop can make the drainer look at the outbox again.
			pol := runtime.Policy{Outbox: runtime.OutboxPolicy{Interval: time.Hour, BatchSize: 10, MaxBatchSize: 10}}
			// When the target is down, the stop waits for it until the stop
			// timeout: keep that short.
			stopTimeout := time.Duration(0)
			if tc.fail {
				stopTimeout = 200 * time.Millisecond
			}
			stop := start(t, []runtime.Route{outboxRoute(memtransport.NewReceiver(memtransport.Options{}), snd, pol)},
				runtime.Options{DLQ: newMemDLQ(), Outbox: ob, StopTimeout: stopTimeout, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			select {
			case <-ob.claimed:
			case <-waitCtx(t).Done():
				t.Fatal("the drainer never polled")
			}
			var recs []ports.OutboxRecord
			for range 50 {
				recs = append(recs, ports.OutboxRecord{Partition: "ob/b", RouteID: "ob", BindingID: "b", Address: "target",
					Envelope: messaging.NewEnvelope("s", nil)})
			}
			if err := ob.Persist(context.Background(), recs); err != nil {
				t.Fatal(err)
			}
			if err := stop(); err != nil {
				t.Fatal(err)
			}
			if got := len(snd.Sent()); got != tc.wantSent {
				t.Errorf("delivered %d of the backlog at stop, want %d", got, tc.wantSent)
			}
			if tc.wantLog != "" && !strings.Contains(logs.String(), tc.wantLog) {
				t.Errorf("the loss is not reported; logs:\n%s", logs.String())
			}
		})
	}
}

// volatileDLQ is a memDLQ whose entries die with the process.
type volatileDLQ struct{ *memDLQ }

func (volatileDLQ) Volatile() bool { return true }

// TestStopReportsDeadLettersOfAMemoryDLQ: dead letters kept in memory are
// lost at stop; the stop says how many.
func TestStopReportsDeadLettersOfAMemoryDLQ(t *testing.T) {
	recv := memtransport.NewReceiver(memtransport.Options{})
	snd := memtransport.NewSender(memtransport.SenderOptions{Fail: func(ports.OutboundMessage) error { return fault.ErrForbidden }})
	dlq := volatileDLQ{newMemDLQ()}
	var logs syncBuffer
	stop := start(t, []runtime.Route{{ID: "r", Receiver: recv, Bindings: []runtime.Binding{{ID: "b", Sender: snd}}}},
		runtime.Options{DLQ: dlq, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	publish(t, recv, messaging.NewEnvelope("s", nil))
	dlq.wait(t, 1)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "1 dead letters are lost") {
		t.Errorf("the loss of the dead letters is not reported; logs:\n%s", logs.String())
	}
}
