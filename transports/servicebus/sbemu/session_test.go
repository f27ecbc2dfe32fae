package sbemu

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus"
	"github.com/google/go-cmp/cmp"
)

func sendSession(ctx context.Context, t *testing.T, s *azservicebus.Sender, session string, bodies ...string) {
	t.Helper()
	for _, b := range bodies {
		sid := session
		if err := s.SendMessage(ctx, &azservicebus.Message{Body: []byte(b), SessionID: &sid}, nil); err != nil {
			t.Fatalf("SendMessage(%s/%s): %v", session, b, err)
		}
	}
}

func TestSessionsOrderStateAndLocking(t *testing.T) {
	e := StartForTest(t, Options{Entities: []Entity{{Name: "sq", RequiresSession: true}}})
	c := newClient(t, e)
	ctx := testCtx(t)
	s := newSender(t, c, "sq")
	sendSession(ctx, t, s, "s1", "a1")
	sendSession(ctx, t, s, "s2", "b1")
	sendSession(ctx, t, s, "s1", "a2")
	sendSession(ctx, t, s, "s2", "b2")
	sendSession(ctx, t, s, "s1", "a3")
	if err := s.SendMessage(ctx, &azservicebus.Message{Body: []byte("no session")}, nil); err == nil {
		t.Errorf("sending without a SessionID to a session queue succeeded, want an error")
	}

	want := map[string][]string{"s1": {"a1", "a2", "a3"}, "s2": {"b1", "b2"}}
	got := map[string][]string{}
	for range 2 {
		sr, err := c.AcceptNextSessionForQueue(ctx, "sq", nil)
		if err != nil {
			t.Fatalf("AcceptNextSessionForQueue: %v", err)
		}
		sid := sr.SessionID()
		if _, dup := got[sid]; dup {
			t.Fatalf("session %s accepted twice", sid)
		}
		// Another receiver cannot lock a session that is locked.
		if other, err := c.AcceptSessionForQueue(ctx, "sq", sid, nil); err == nil {
			_ = other.Close(ctx)
			t.Errorf("AcceptSessionForQueue(%s) while locked succeeded, want an error", sid)
		}
		msgs := receiveN(ctx, t, sr, len(want[sid]))
		got[sid] = bodies(msgs)
		for _, m := range msgs {
			if deref(m.SessionID) != sid {
				t.Errorf("message %q has SessionID %q in session %s", m.Body, deref(m.SessionID), sid)
			}
			if err := sr.CompleteMessage(ctx, m, nil); err != nil {
				t.Fatalf("CompleteMessage: %v", err)
			}
		}
		state := []byte("state of " + sid)
		if err := sr.SetSessionState(ctx, state, nil); err != nil {
			t.Fatalf("SetSessionState: %v", err)
		}
		if back, err := sr.GetSessionState(ctx, nil); err != nil || !bytes.Equal(back, state) {
			t.Errorf("GetSessionState = %q, %v; want %q", back, err, state)
		}
		before := sr.LockedUntil()
		if err := sr.RenewSessionLock(ctx, nil); err != nil {
			t.Errorf("RenewSessionLock: %v", err)
		} else if sr.LockedUntil().Before(before) {
			t.Errorf("LockedUntil went back: %v then %v", before, sr.LockedUntil())
		}
		if err := sr.Close(ctx); err != nil {
			t.Fatalf("SessionReceiver.Close: %v", err)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("messages per session (-want +got):\n%s", diff)
	}
	// Session state outlives the receiver; a named session can be accepted again.
	sr, err := c.AcceptSessionForQueue(ctx, "sq", "s1", nil)
	if err != nil {
		t.Fatalf("AcceptSessionForQueue(s1): %v", err)
	}
	if back, err := sr.GetSessionState(ctx, nil); err != nil || string(back) != "state of s1" {
		t.Errorf("GetSessionState after reaccept = %q, %v", back, err)
	}
	_ = sr.Close(ctx)
}

func TestSessionUnsettledMessagesReturnWhenTheReceiverCloses(t *testing.T) {
	e := StartForTest(t, Options{Entities: []Entity{{Name: "sq", RequiresSession: true}}})
	c := newClient(t, e)
	ctx := testCtx(t)
	sendSession(ctx, t, newSender(t, c, "sq"), "s1", "a1", "a2")
	sr, err := c.AcceptSessionForQueue(ctx, "sq", "s1", nil)
	if err != nil {
		t.Fatal(err)
	}
	first := receiveN(ctx, t, sr, 1)[0]
	if err := sr.AbandonMessage(ctx, first, nil); err != nil {
		t.Fatal(err)
	}
	again := receiveN(ctx, t, sr, 1)[0]
	if string(again.Body) != "a1" || again.DeliveryCount != 2 {
		t.Errorf("after abandon: %q DeliveryCount %d, want a1 2 (session order kept)", again.Body, again.DeliveryCount)
	}
	_ = sr.Close(ctx)
	sr2, err := c.AcceptNextSessionForQueue(ctx, "sq", nil)
	if err != nil {
		t.Fatalf("AcceptNextSessionForQueue after close: %v", err)
	}
	defer func() { _ = sr2.Close(ctx) }()
	msgs := receiveN(ctx, t, sr2, 2)
	if diff := cmp.Diff([]string{"a1", "a2"}, bodies(msgs)); diff != "" {
		t.Errorf("after the first receiver closed (-want +got):\n%s", diff)
	}
}

func TestAcceptNextSessionTimesOutWhenNoneIsFree(t *testing.T) {
	e := StartForTest(t, Options{Entities: []Entity{{Name: "sq", RequiresSession: true}}})
	c := newClient(t, e)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	sr, err := c.AcceptNextSessionForQueue(ctx, "sq", nil)
	if err == nil {
		_ = sr.Close(context.Background())
		t.Fatal("AcceptNextSessionForQueue on an empty queue succeeded")
	}
	if got := codeOf(err); got != azservicebus.CodeTimeout {
		t.Errorf("err %v (code %q), want code %q (com.microsoft:timeout before the context's deadline)", err, got, azservicebus.CodeTimeout)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestAcceptNextSessionWaitsForAMessage(t *testing.T) {
	e := StartForTest(t, Options{Entities: []Entity{{Name: "sq", RequiresSession: true}}})
	c := newClient(t, e)
	ctx := testCtx(t)
	type result struct {
		sr  *azservicebus.SessionReceiver
		err error
	}
	done := make(chan result, 1)
	go func() {
		sr, err := c.AcceptNextSessionForQueue(ctx, "sq", nil)
		done <- result{sr, err}
	}()
	waitCounts(ctx, t, e, "sq", Counts{}) // the accept is pending in the emulator
	sendSession(ctx, t, newSender(t, c, "sq"), "late", "x")
	res := <-done
	if res.err != nil {
		t.Fatalf("AcceptNextSessionForQueue: %v", res.err)
	}
	defer func() { _ = res.sr.Close(ctx) }()
	if res.sr.SessionID() != "late" {
		t.Errorf("SessionID = %q, want late", res.sr.SessionID())
	}
}

func TestSessionLockExpiryReleasesTheSession(t *testing.T) {
	e := StartForTest(t, Options{Entities: []Entity{{Name: "sq", RequiresSession: true, LockDuration: 500 * time.Millisecond}}})
	c := newClient(t, e)
	ctx := testCtx(t)
	sendSession(ctx, t, newSender(t, c, "sq"), "s1", "a1")
	sr, err := c.AcceptSessionForQueue(ctx, "sq", "s1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if first := receiveN(ctx, t, sr, 1)[0]; first.DeliveryCount != 1 {
		t.Fatalf("first delivery: DeliveryCount %d", first.DeliveryCount)
	}
	// Not renewed: the session lock expires, the emulator detaches the
	// receiver with com.microsoft:session-lock-lost and the message is
	// available again. (Settling it now would make the SDK retry: for a
	// session it treats a lost lock as recoverable by re-attaching.)
	waitCounts(ctx, t, e, "sq", Counts{Active: 1})
	_ = sr.Close(ctx) // reports the session-lock-lost detach
	other, err := c.AcceptSessionForQueue(ctx, "sq", "s1", nil)
	if err != nil {
		t.Fatalf("AcceptSessionForQueue after expiry: %v", err)
	}
	defer func() { _ = other.Close(ctx) }()
	again := receiveN(ctx, t, other, 1)[0]
	if string(again.Body) != "a1" || again.DeliveryCount != 2 {
		t.Errorf("after session lock expiry: %q DeliveryCount %d, want a1 2", again.Body, again.DeliveryCount)
	}
}

func TestListSessions(t *testing.T) {
	e := StartForTest(t, Options{Entities: []Entity{{Name: "sq", RequiresSession: true}}})
	c := newClient(t, e)
	ctx := testCtx(t)
	s := newSender(t, c, "sq")
	sendSession(ctx, t, s, "b", "1")
	sendSession(ctx, t, s, "a", "1")
	var got []string
	pager := c.NewListSessionsForQueuePager("sq", nil)
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatalf("NextPage: %v", err)
		}
		got = append(got, page.Sessions...)
	}
	if diff := cmp.Diff([]string{"a", "b"}, got); diff != "" {
		t.Errorf("sessions (-want +got):\n%s", diff)
	}
}
