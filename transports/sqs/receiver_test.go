package sqs

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// stubMessages answers ReceiveMessage with as many messages as asked for,
// each received for the given time, and records the largest request.
func stubMessages(receiveCount string, asked *atomic.Int64, seq *atomic.Int64) stubOp {
	return func(req map[string]any) (int, any) {
		n, _ := req["MaxNumberOfMessages"].(float64)
		asked.Add(int64(n))
		var msgs []map[string]any
		for range int(n) {
			i := seq.Add(1)
			msgs = append(msgs, map[string]any{"MessageId": fmt.Sprint("id", i), "ReceiptHandle": fmt.Sprint("rh", i), "Body": "b",
				"Attributes": map[string]string{"ApproximateReceiveCount": receiveCount}})
		}
		return 200, map[string]any{"Messages": msgs}
	}
}

func visibility30(map[string]any) (int, any) {
	return 200, map[string]any{"Attributes": map[string]string{"VisibilityTimeout": "30"}}
}

// runReceiver runs r until the test ends.
func runReceiver(t *testing.T, r *Receiver, emit ports.EmitFunc) {
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx, emit) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("Run did not return")
		}
	})
}

// collect returns an emit that hands deliveries to a channel.
func collect(ch chan<- ports.Delivery) ports.EmitFunc {
	return func(ctx context.Context, d ports.Delivery) error {
		select {
		case ch <- d:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func next(t *testing.T, ch <-chan ports.Delivery) ports.Delivery {
	t.Helper()
	select {
	case d := <-ch:
		return d
	case <-time.After(5 * time.Second):
		t.Fatal("no delivery")
		return nil
	}
}

// With max_in_flight 15, the pollers hold 15 messages and ask for no
// more until one is settled; then exactly one more comes.
func TestPollersNeverHoldMoreThanMaxInFlight(t *testing.T) {
	var asked, seq atomic.Int64
	stub := newStub(t, map[string]stubOp{
		"ReceiveMessage":     stubMessages("1", &asked, &seq),
		"GetQueueAttributes": visibility30,
		"DeleteMessageBatch": func(req map[string]any) (int, any) {
			var ok []map[string]any
			for _, e := range entries(req) {
				ok = append(ok, map[string]any{"Id": e["Id"]})
			}
			return 200, map[string]any{"Successful": ok}
		},
	})
	r, err := NewReceiver(stub.client(), ReceiverConfig{Queue: stubQueue, WaitTime: time.Second}, WithMaxInFlight(15))
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan ports.Delivery, 100)
	runReceiver(t, r, collect(ch))
	var held []ports.Delivery
	for range 15 {
		held = append(held, next(t, ch))
	}
	select {
	case d := <-ch:
		t.Fatalf("a 16th delivery %s arrived with 15 unsettled", d.Envelope().ID)
	case <-time.After(300 * time.Millisecond):
	}
	if n := asked.Load(); n != 15 {
		t.Errorf("receives asked for %d messages in all, want 15", n)
	}
	if err := held[0].Ack(t.Context()); err != nil {
		t.Fatalf("Ack: %v", err)
	}
	next(t, ch)
}

// Ten acks at once share one DeleteMessageBatch; an entry that fails
// with a server fault is tried again and its Ack succeeds.
func TestAcksShareDeleteBatchAndFailedDeletesAreRetried(t *testing.T) {
	var asked, seq atomic.Int64
	var failedOnce atomic.Bool
	stub := newStub(t, map[string]stubOp{
		"ReceiveMessage":     stubMessages("1", &asked, &seq),
		"GetQueueAttributes": visibility30,
		"DeleteMessageBatch": func(req map[string]any) (int, any) {
			var ok, failed []map[string]any
			for _, e := range entries(req) {
				if e["ReceiptHandle"] == "rh1" && failedOnce.CompareAndSwap(false, true) {
					failed = append(failed, map[string]any{"Id": e["Id"], "SenderFault": false, "Code": "InternalError", "Message": "try again"})
					continue
				}
				ok = append(ok, map[string]any{"Id": e["Id"]})
			}
			return 200, map[string]any{"Successful": ok, "Failed": failed}
		},
	})
	r, err := NewReceiver(stub.client(), ReceiverConfig{Queue: stubQueue, WaitTime: time.Second, MaxMessages: 10, Pollers: 1}, WithMaxInFlight(10))
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan ports.Delivery, 10)
	runReceiver(t, r, collect(ch))
	var wg sync.WaitGroup
	errs := make(chan error, 10)
	for range 10 {
		d := next(t, ch)
		wg.Go(func() { errs <- d.Ack(t.Context()) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("Ack: %v", err)
		}
	}
	if n := stub.calls("DeleteMessageBatch"); n != 2 {
		t.Errorf("DeleteMessageBatch calls = %d, want 2 (one batch of 10, one retry of the failed entry)", n)
	}
}

// ApproximateReceiveCount 3 means two earlier deliveries; the delivery's
// lease is the queue's visibility timeout from receipt.
func TestReceiveCountAndLease(t *testing.T) {
	var asked, seq atomic.Int64
	stub := newStub(t, map[string]stubOp{
		"ReceiveMessage":     stubMessages("3", &asked, &seq),
		"GetQueueAttributes": visibility30,
	})
	r, err := NewReceiver(stub.client(), ReceiverConfig{Queue: stubQueue, WaitTime: time.Second, MaxMessages: 1, Pollers: 1}, WithMaxInFlight(1))
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan ports.Delivery, 1)
	before := time.Now()
	runReceiver(t, r, collect(ch))
	d := next(t, ch)
	if n, ok := d.(ports.RedeliveryCounter).RedeliveryCount(); n != 2 || !ok {
		t.Errorf("RedeliveryCount = %d, %v; want 2, true", n, ok)
	}
	lease := d.(ports.Leased).LeaseUntil()
	if lease.Before(before.Add(30*time.Second)) || lease.After(time.Now().Add(30*time.Second)) {
		t.Errorf("LeaseUntil %v, want 30s after receipt (%v)", lease, before)
	}
}

// Concurrent extensions share one ChangeMessageVisibilityBatch; where the
// server refuses that call, they fall back to one call each, and stay
// there.
func TestExtendBatchesAndFallsBack(t *testing.T) {
	for _, batchOK := range []bool{true, false} {
		t.Run(fmt.Sprint("batch-supported=", batchOK), func(t *testing.T) {
			var asked, seq atomic.Int64
			ops := map[string]stubOp{
				"ReceiveMessage":          stubMessages("1", &asked, &seq),
				"GetQueueAttributes":      visibility30,
				"ChangeMessageVisibility": func(map[string]any) (int, any) { return 200, map[string]any{} },
			}
			if batchOK {
				ops["ChangeMessageVisibilityBatch"] = func(req map[string]any) (int, any) {
					var ok []map[string]any
					for _, e := range entries(req) {
						ok = append(ok, map[string]any{"Id": e["Id"]})
					}
					return 200, map[string]any{"Successful": ok}
				}
			}
			stub := newStub(t, ops)
			r, err := NewReceiver(stub.client(), ReceiverConfig{Queue: stubQueue, WaitTime: time.Second, Pollers: 1}, WithMaxInFlight(10))
			if err != nil {
				t.Fatal(err)
			}
			ch := make(chan ports.Delivery, 10)
			runReceiver(t, r, collect(ch))
			for round := range 2 {
				var ds []ports.Delivery
				for range 5 {
					ds = append(ds, next(t, ch))
				}
				until := time.Now().Add(time.Minute)
				var wg sync.WaitGroup
				for _, d := range ds {
					wg.Go(func() {
						if err := d.Extend(t.Context(), until); err != nil {
							t.Errorf("round %d: Extend: %v", round, err)
						}
						if got := d.(ports.Leased).LeaseUntil(); got.Before(until) {
							t.Errorf("round %d: LeaseUntil %v, before %v", round, got, until)
						}
						_ = d.Ack(t.Context())
					})
				}
				wg.Wait()
			}
			batch, single := stub.calls("ChangeMessageVisibilityBatch"), stub.calls("ChangeMessageVisibility")
			if batchOK && (batch != 2 || single != 0) {
				t.Errorf("batch calls %d, single calls %d; want 2 and 0", batch, single)
			}
			if !batchOK && (batch != 1 || single != 10) {
				t.Errorf("batch calls %d, single calls %d; want 1 (refused once) and 10", batch, single)
			}
		})
	}
}

// A throttled receive pauses that poller for the throttle's Retry-After
// (1s) and then goes on receiving.
func TestThrottledReceivePausesAndRecovers(t *testing.T) {
	var calls atomic.Int64
	var asked, seq atomic.Int64
	var throttledAt atomic.Int64
	ok := stubMessages("1", &asked, &seq)
	stub := newStub(t, map[string]stubOp{
		"ReceiveMessage": func(req map[string]any) (int, any) {
			if calls.Add(1) == 1 {
				throttledAt.Store(time.Now().UnixNano())
				return apiError("ThrottlingException", "slow down")
			}
			return ok(req)
		},
		"GetQueueAttributes": visibility30,
	})
	r, err := NewReceiver(stub.client(), ReceiverConfig{Queue: stubQueue, WaitTime: time.Second, Pollers: 1, MaxMessages: 1}, WithMaxInFlight(1))
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan ports.Delivery, 1)
	runReceiver(t, r, collect(ch))
	next(t, ch)
	if waited := time.Since(time.Unix(0, throttledAt.Load())); waited < throttleRetryAfter {
		t.Errorf("received again %v after the throttle, want at least %v", waited, throttleRetryAfter)
	}
}

// A queue name that cannot be resolved because SQS is unavailable is
// tried again; one that does not exist ends Run with NOT_FOUND.
func TestQueueResolution(t *testing.T) {
	t.Run("unavailable then found", func(t *testing.T) {
		var calls, asked, seq atomic.Int64
		stub := newStub(t, map[string]stubOp{
			"GetQueueUrl": func(map[string]any) (int, any) {
				if calls.Add(1) == 1 {
					return 503, map[string]string{"__type": "com.amazonaws.sqs#ServiceUnavailable", "message": "later"}
				}
				return 200, map[string]any{"QueueUrl": stubQueue}
			},
			"ReceiveMessage":     stubMessages("1", &asked, &seq),
			"GetQueueAttributes": visibility30,
		})
		r, err := NewReceiver(stub.client(), ReceiverConfig{Queue: "orders", WaitTime: time.Second, Pollers: 1, MaxMessages: 1}, WithMaxInFlight(1))
		if err != nil {
			t.Fatal(err)
		}
		ch := make(chan ports.Delivery, 1)
		runReceiver(t, r, collect(ch))
		next(t, ch)
	})
	t.Run("does not exist", func(t *testing.T) {
		stub := newStub(t, map[string]stubOp{
			"GetQueueUrl": func(map[string]any) (int, any) { return apiError("QueueDoesNotExist", "no such queue") },
		})
		r, err := NewReceiver(stub.client(), ReceiverConfig{Queue: "orders", WaitTime: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		err = r.Run(t.Context(), collect(make(chan ports.Delivery)))
		if fault.CodeOf(err) != fault.CodeNotFound {
			t.Errorf("Run = %v, want code %s", err, fault.CodeNotFound)
		}
	})
}
