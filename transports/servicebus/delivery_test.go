package servicebus

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus"
	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// fakeLink records settlements and renewals; each renewal extends the
// lock by lockDur from now, until failRenewAfter renewals, after which
// the lock is lost.
type fakeLink struct {
	mu             sync.Mutex
	calls          []string
	dl             *azservicebus.DeadLetterOptions
	lockDur        time.Duration
	renewals       int
	failRenewAfter int // 0: never
	completeErr    error
}

func (f *fakeLink) record(c string) {
	f.mu.Lock()
	f.calls = append(f.calls, c)
	f.mu.Unlock()
}

func (f *fakeLink) CompleteMessage(context.Context, *azservicebus.ReceivedMessage, *azservicebus.CompleteMessageOptions) error {
	f.record("complete")
	return f.completeErr
}

func (f *fakeLink) AbandonMessage(context.Context, *azservicebus.ReceivedMessage, *azservicebus.AbandonMessageOptions) error {
	f.record("abandon")
	return nil
}

func (f *fakeLink) DeadLetterMessage(_ context.Context, _ *azservicebus.ReceivedMessage, o *azservicebus.DeadLetterOptions) error {
	f.record("dead-letter")
	f.dl = o
	return nil
}

func (f *fakeLink) renew(_ context.Context, m *azservicebus.ReceivedMessage) (time.Time, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.renewals++
	if f.failRenewAfter > 0 && f.renewals > f.failRenewAfter {
		f.calls = append(f.calls, "renew-lost")
		return time.Time{}, &azservicebus.Error{Code: azservicebus.CodeLockLost}
	}
	f.calls = append(f.calls, "renew")
	t := time.Now().Add(f.lockDur)
	m.LockedUntil = &t
	return t, nil
}

func (f *fakeLink) log() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func newTestDelivery(t *testing.T, cfg ReceiverConfig, link *fakeLink, deliveries uint32) (*delivery, *telemetry.Memory, *int) {
	t.Helper()
	mem := telemetry.NewMemory()
	de := &deliveryEnv{cfg: cfg.WithDefaults(), m: newReceiverMetrics(mem, "r"), log: slog.Default(), entity: "q", now: time.Now}
	until := time.Now().Add(link.lockDur)
	seq := int64(12)
	msg := &azservicebus.ReceivedMessage{MessageID: "m1", DeliveryCount: deliveries, LockedUntil: &until, SequenceNumber: &seq}
	released := new(int)
	return newDelivery(de, msg, link, link, func() { *released++ }), mem, released
}

func TestDeliveryAck(t *testing.T) {
	link := &fakeLink{lockDur: time.Minute}
	d, mem, released := newTestDelivery(t, ReceiverConfig{}, link, 1)
	if err := d.Ack(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := d.Ack(t.Context()); err == nil {
		t.Error("a second Ack succeeded")
	}
	d.Settled(ports.Settlement{Outcome: ports.SettledAcked})
	if diff := cmp.Diff([]string{"complete"}, link.log()); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if *released != 1 || mem.Value("gobridge_servicebus_settled_total", "r", outCompleted) != 1 {
		t.Errorf("released %d times, completed counted %v", *released, mem.Value("gobridge_servicebus_settled_total", "r", outCompleted))
	}
}

// Retry keeps the lock for the whole delay, renewing it before it
// expires, then abandons the message.
func TestDeliveryRetryHoldsTheLock(t *testing.T) {
	link := &fakeLink{lockDur: 150 * time.Millisecond}
	d, mem, released := newTestDelivery(t, ReceiverConfig{}, link, 1)
	start := time.Now()
	if err := d.Retry(t.Context(), 500*time.Millisecond, errors.New("x")); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < 500*time.Millisecond {
		t.Errorf("Retry returned after %v, before the delay", el)
	}
	calls := link.log()
	if len(calls) < 4 || calls[len(calls)-1] != "abandon" {
		t.Fatalf("calls %v: want three or more renewals, then abandon", calls)
	}
	for _, c := range calls[:len(calls)-1] {
		if c != "renew" {
			t.Errorf("calls %v: only renewals before the abandon", calls)
		}
	}
	if *released != 1 || mem.Value("gobridge_servicebus_lock_renewals_total", "r") < 3 {
		t.Errorf("released %d, renewals counted %v", *released, mem.Value("gobridge_servicebus_lock_renewals_total", "r"))
	}
}

// A lock lost while holding for a retry ends the retry unsettled.
func TestDeliveryRetryLockLost(t *testing.T) {
	link := &fakeLink{lockDur: 90 * time.Millisecond, failRenewAfter: 1}
	d, mem, _ := newTestDelivery(t, ReceiverConfig{}, link, 1)
	err := d.Retry(t.Context(), time.Second, errors.New("x"))
	if err == nil || !fault.IsRecoverable(err) {
		t.Fatalf("Retry = %v, want a transient error", err)
	}
	if diff := cmp.Diff([]string{"renew", "renew-lost"}, link.log()); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if mem.Value("gobridge_servicebus_lock_lost_total", "r") != 1 {
		t.Error("the lost lock was not counted")
	}
}

func TestDeliveryRetryOff(t *testing.T) {
	d, _, _ := newTestDelivery(t, ReceiverConfig{Retry: RetryOff}, &fakeLink{lockDur: time.Minute}, 1)
	if err := d.Retry(t.Context(), 0, nil); fault.CodeOf(err) != fault.CodeNotSupported {
		t.Errorf("Retry = %v, want NOT_SUPPORTED", err)
	}
}

func TestDeliveryReject(t *testing.T) {
	d, _, _ := newTestDelivery(t, ReceiverConfig{}, &fakeLink{lockDur: time.Minute}, 1)
	if err := d.Reject(t.Context(), ports.DLQPermanent, fault.ErrInvalidPayload); fault.CodeOf(err) != fault.CodeNotSupported {
		t.Errorf("Reject with on_permanent dlq = %v, want NOT_SUPPORTED", err)
	}
	link := &fakeLink{lockDur: time.Minute}
	d, _, _ = newTestDelivery(t, ReceiverConfig{OnPermanent: PermanentDeadLetter}, link, 1)
	if err := d.Reject(t.Context(), ports.DLQPermanent, fault.ErrInvalidPayload.WithMessage("payload says secret")); err != nil {
		t.Fatal(err)
	}
	if link.dl == nil || *link.dl.Reason != "gobridge:permanent" || *link.dl.ErrorDescription != "INVALID_PAYLOAD" {
		t.Errorf("dead-letter options %+v", link.dl)
	}
}

// Extend renews; a lost lock is counted and reported as transient.
func TestDeliveryExtend(t *testing.T) {
	link := &fakeLink{lockDur: time.Minute, failRenewAfter: 1}
	d, mem, _ := newTestDelivery(t, ReceiverConfig{}, link, 1)
	before := (lockedDelivery{d}).LeaseUntil()
	if err := d.Extend(t.Context(), time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if !(lockedDelivery{d}).LeaseUntil().After(before) {
		t.Error("LeaseUntil did not move")
	}
	err := d.Extend(t.Context(), time.Now().Add(time.Minute))
	if err == nil || !lockLost(err) || !fault.IsRecoverable(err) {
		t.Errorf("Extend after the lock was lost = %v", err)
	}
	if mem.Value("gobridge_servicebus_lock_lost_total", "r") != 1 {
		t.Error("the lost lock was not counted")
	}
}

// The SDK counts the delivery in hand: 1 the first time, attempt 1.
func TestDeliveryCounts(t *testing.T) {
	for _, tt := range []struct {
		sdk  uint32
		n    int
		ok   bool
		want string
	}{{0, 0, false, "q#12"}, {1, 0, true, "q#12"}, {4, 3, true, "q#12"}} {
		d, _, _ := newTestDelivery(t, ReceiverConfig{}, &fakeLink{lockDur: time.Minute}, tt.sdk)
		n, ok := d.RedeliveryCount()
		if n != tt.n || ok != tt.ok || d.DeliveryKey() != tt.want {
			t.Errorf("DeliveryCount %d: RedeliveryCount %d %v key %q; want %d %v %q", tt.sdk, n, ok, d.DeliveryKey(), tt.n, tt.ok, tt.want)
		}
	}
}
