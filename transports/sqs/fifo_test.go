package sqs

import (
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// Messages to a .fifo queue carry the group from the ordering-key header
// (or the default group) and the dedup id from x-bridge.dedup-id or the
// envelope ID; standard queues get neither; content-based deduplication
// sends no dedup id; a FIFO message without any group fails alone.
func TestFIFOIdsPerMessage(t *testing.T) {
	type ids struct{ Group, Dedup any }
	cases := []struct {
		name  string
		cfg   FIFOConfig
		queue string
		hdr   map[string]string
		want  ids
		code  fault.Code
	}{
		{"ordering key and envelope id", FIFOConfig{}, stubQueue + ".fifo",
			map[string]string{messaging.HeaderOrderingKey: "customer-7"}, ids{"customer-7", "env-1"}, ""},
		{"dedup header wins", FIFOConfig{}, stubQueue + ".fifo",
			map[string]string{messaging.HeaderOrderingKey: "g", messaging.HeaderDedupID: "d-9"}, ids{"g", "d-9"}, ""},
		{"default group", FIFOConfig{DefaultGroup: "all"}, stubQueue + ".fifo", nil, ids{"all", "env-1"}, ""},
		{"custom header, content dedup", FIFOConfig{GroupHeader: "tenant", Deduplication: DedupContent}, stubQueue + ".fifo",
			map[string]string{"tenant": "acme"}, ids{"acme", nil}, ""},
		{"too long a group is hashed", FIFOConfig{}, stubQueue + ".fifo",
			map[string]string{messaging.HeaderOrderingKey: strings.Repeat("g", 200)}, ids{hashID(strings.Repeat("g", 200)), "env-1"}, ""},
		{"standard queue", FIFOConfig{}, stubQueue, map[string]string{messaging.HeaderOrderingKey: "g"}, ids{nil, nil}, ""},
		{"no group", FIFOConfig{}, stubQueue + ".fifo", nil, ids{}, fault.CodeInvalidPayload},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var mu sync.Mutex
			var got ids
			stub := newStub(t, map[string]stubOp{
				"SendMessageBatch": func(req map[string]any) (int, any) {
					e := entries(req)[0]
					mu.Lock()
					got = ids{e["MessageGroupId"], e["MessageDeduplicationId"]}
					mu.Unlock()
					return 200, map[string]any{"Successful": []map[string]any{{"Id": e["Id"], "MessageId": "m"}}}
				},
			})
			s, err := NewSender(stub.client(), SenderConfig{FIFO: c.cfg})
			if err != nil {
				t.Fatal(err)
			}
			env := messaging.NewEnvelope("s", []byte("p"))
			env.ID = "env-1"
			for k, v := range c.hdr {
				env.SetHeader(k, v)
			}
			err = s.Send(t.Context(), ports.OutboundMessage{Envelope: env, Address: c.queue})
			if fault.CodeOf(err) != c.code || (c.code == "") != (err == nil) {
				t.Fatalf("Send = %v, want code %q", err, c.code)
			}
			if c.code != "" {
				if n := stub.calls("SendMessageBatch"); n != 0 {
					t.Errorf("%d calls for a message that cannot be sent", n)
				}
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("ids (-want +got):\n%s", diff)
			}
		})
	}
}
