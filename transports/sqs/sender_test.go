package sqs

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
)

func outbound(n int) []ports.OutboundMessage {
	msgs := make([]ports.OutboundMessage, n)
	for i := range msgs {
		msgs[i] = ports.OutboundMessage{Envelope: messaging.NewEnvelope("s", fmt.Appendf(nil, "m%d", i)), Address: stubQueue}
	}
	return msgs
}

// Every message of the batch whose body is "m3" fails alone, with the
// code SQS gave it; the others succeed; results stay index-aligned across
// the three calls 25 messages need.
func TestSendBatchPartialFailureStaysWithItsMessage(t *testing.T) {
	stub := newStub(t, map[string]stubOp{
		"SendMessageBatch": func(req map[string]any) (int, any) {
			var ok, failed []map[string]any
			for _, e := range entries(req) {
				if e["MessageBody"] == "m3" || e["MessageBody"] == "m17" {
					failed = append(failed, map[string]any{"Id": e["Id"], "SenderFault": true, "Code": "InvalidMessageContents", "Message": "no"})
					continue
				}
				ok = append(ok, map[string]any{"Id": e["Id"], "MessageId": "x", "MD5OfMessageBody": "x"})
			}
			return 200, map[string]any{"Successful": ok, "Failed": failed}
		},
	})
	s, err := NewSender(stub.client(), SenderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.SendBatch(t.Context(), outbound(25))
	if err != nil {
		t.Fatalf("SendBatch: %v", err)
	}
	var got []string
	for i, r := range res {
		if r.Index != i {
			t.Errorf("results[%d].Index = %d", i, r.Index)
		}
		got = append(got, string(fault.CodeOf(r.Err)))
	}
	want := make([]string, 25)
	for i := range want {
		want[i] = string(fault.CodeOf(nil))
	}
	want[3], want[17] = string(fault.CodeInvalidPayload), string(fault.CodeInvalidPayload)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("codes per message (-want +got):\n%s", diff)
	}
	if n := stub.calls("SendMessageBatch"); n != 3 {
		t.Errorf("SendMessageBatch calls = %d, want 3 for 25 messages", n)
	}
}

func TestSendErrorsMapToFaultClasses(t *testing.T) {
	cases := []struct {
		code      string
		wantCode  fault.Code
		wantClass fault.Class
		retry     bool
	}{
		{"ThrottlingException", fault.CodeThrottled, fault.ClassTransient, true},
		{"RequestThrottled", fault.CodeThrottled, fault.ClassTransient, true},
		{"QueueDoesNotExist", fault.CodeNotFound, fault.ClassPermanent, false},
		{"AccessDeniedException", fault.CodeForbidden, fault.ClassPermanent, false},
		{"KmsAccessDenied", fault.CodeForbidden, fault.ClassPermanent, false},
	}
	for _, c := range cases {
		t.Run(c.code, func(t *testing.T) {
			stub := newStub(t, map[string]stubOp{
				"SendMessageBatch": func(map[string]any) (int, any) { return apiError(c.code, "refused") },
			})
			s, err := NewSender(stub.client(), SenderConfig{})
			if err != nil {
				t.Fatal(err)
			}
			err = s.Send(t.Context(), outbound(1)[0])
			if fault.CodeOf(err) != c.wantCode || fault.ClassOf(err) != c.wantClass {
				t.Errorf("Send = %v (code %s, class %s), want %s %s", err, fault.CodeOf(err), fault.ClassOf(err), c.wantCode, c.wantClass)
			}
			if ra := fault.RetryAfter(err); (ra > 0) != c.retry || ra > time.Minute {
				t.Errorf("RetryAfter = %v, want positive: %v", ra, c.retry)
			}
		})
	}
}

// Twelve headers: nine become attributes, the rest travel inside the
// metadata attribute, and all twelve come back.
func TestHeadersPastTheAttributeLimitSurvive(t *testing.T) {
	env := messaging.NewEnvelope("s", []byte("p"))
	for i := range 12 {
		env.SetHeader(fmt.Sprintf("h%02d", i), fmt.Sprint(i))
	}
	w, err := toWire(env, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.attrs) != maxAttributes {
		t.Errorf("%d attributes, want %d", len(w.attrs), maxAttributes)
	}
	back := fromWire(wireToMessage(w), time.Now())
	if diff := cmp.Diff(env.Headers, back.Headers); diff != "" {
		t.Errorf("headers (-sent +received):\n%s", diff)
	}
}
