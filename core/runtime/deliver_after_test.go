package runtime_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
)

// delayingSender is a memtransport sender whose target can delay messages
// by up to limit, except to the address "fifo".
type delayingSender struct {
	*memtransport.Sender
	limit time.Duration
}

func (d delayingSender) DelayLimit(address string) (time.Duration, error) {
	if address == "fifo" {
		return 0, errors.New("a FIFO queue delays only as a whole")
	}
	return d.limit, nil
}

// wrapped stands for a wrapper such as the bridge's shared senders.
type wrapped struct{ ports.Sender }

func (w wrapped) Unwrap() ports.Sender { return w.Sender }

func TestDeliverAfterSetsNotBefore(t *testing.T) {
	for _, mode := range []runtime.DeliveryMode{runtime.DirectHold, runtime.SharedOutbox} {
		t.Run(string(mode), func(t *testing.T) {
			recv := memtransport.NewReceiver(memtransport.Options{})
			snd := delayingSender{memtransport.NewSender(memtransport.SenderOptions{}), time.Hour}
			opts := runtime.Options{}
			if mode == runtime.SharedOutbox {
				opts.Outbox = newFakeOutbox()
			}
			start(t, []runtime.Route{{
				ID: "r", Receiver: recv, DeliveryMode: mode,
				Policy: runtime.Policy{OnExpired: runtime.Drop, OnPermanentFailure: runtime.Drop},
				Bindings: []runtime.Binding{
					{ID: "later", Sender: wrapped{snd}, Address: "q1", DeliverAfter: 90 * time.Second},
				},
			}}, opts)
			before := time.Now()
			publish(t, recv, messaging.NewEnvelope("s", []byte("p")))
			if err := snd.WaitSent(waitCtx(t), 1); err != nil {
				t.Fatal(err)
			}
			after := time.Now()
			got := snd.Sent()[0].NotBefore
			if got.Before(before.Add(90*time.Second)) || got.After(after.Add(90*time.Second)) {
				t.Errorf("NotBefore %v, want send time + 90s (between %v and %v)", got, before.Add(90*time.Second), after.Add(90*time.Second))
			}
		})
	}
}

func TestNoDeliverAfterLeavesNotBeforeZero(t *testing.T) {
	recv := memtransport.NewReceiver(memtransport.Options{})
	snd := memtransport.NewSender(memtransport.SenderOptions{})
	start(t, []runtime.Route{{
		ID: "r", Receiver: recv,
		Policy:   runtime.Policy{OnExpired: runtime.Drop, OnPermanentFailure: runtime.Drop},
		Bindings: []runtime.Binding{{ID: "now", Sender: snd, Address: "q1"}},
	}}, runtime.Options{})
	publish(t, recv, messaging.NewEnvelope("s", []byte("p")))
	if err := snd.WaitSent(waitCtx(t), 1); err != nil {
		t.Fatal(err)
	}
	if got := snd.Sent()[0].NotBefore; !got.IsZero() {
		t.Errorf("NotBefore %v, want zero", got)
	}
}

func TestDeliverAfterNeedsASenderThatCanDelay(t *testing.T) {
	plain := memtransport.NewSender(memtransport.SenderOptions{})
	short := delayingSender{plain, 15 * time.Minute}
	tests := []struct {
		name  string
		snd   ports.Sender
		addr  string
		delay time.Duration
		want  string // "" = accepted
	}{
		{"an address that cannot delay", short, "fifo", time.Second, `bindings[0].deliver_after: sender "s1" cannot delay messages to "fifo": a FIFO queue delays only as a whole`},
		{"plain sender", plain, "", time.Second, `bindings[0].deliver_after: sender "s1" cannot delay messages: not supported yet`},
		{"over the limit", short, "", 16 * time.Minute, `bindings[0].deliver_after: 16m0s exceeds the 15m0s that sender "s1" can delay a message`},
		{"negative", plain, "", -time.Second, "bindings[0].deliver_after: must not be negative"},
		{"within the limit behind a wrapper", wrapped{short}, "q", 15 * time.Minute, ""},
		{"no delay on a plain sender", plain, "", 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runtime.New([]runtime.Route{{
				ID: "r", Receiver: memtransport.NewReceiver(memtransport.Options{}),
				Policy:   runtime.Policy{OnExpired: runtime.Drop, OnPermanentFailure: runtime.Drop},
				Bindings: []runtime.Binding{{ID: "b", SenderID: "s1", Sender: tc.snd, Address: tc.addr, DeliverAfter: tc.delay}},
			}}, runtime.Options{})
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
