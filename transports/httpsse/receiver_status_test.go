package httpsse

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

func TestStatusFor(t *testing.T) {
	acked := func(err error) ports.Settlement {
		return ports.Settlement{Outcome: ports.SettledAcked, Terminal: true, Err: err}
	}
	tests := []struct {
		st       ports.Settlement
		accepted int
		want     int
	}{
		{acked(nil), 200, 200},
		{acked(nil), 202, 202},
		{acked(fault.ErrMessageFiltered), 200, 200},
		{acked(fault.ErrMessageFiltered), 202, 202},
		{acked(fault.ErrInvalidPayload), 200, 400},
		{acked(fault.ErrInvalidTopic), 200, 400},
		{acked(fault.ErrPayloadTooLarge), 200, 413},
		{acked(fault.ErrSchemaViolation), 200, 422},
		{acked(fault.NewWithClass(fault.ClassRejected, "PLUGIN_REJECT", "m")), 200, 400},
		{acked(fault.ErrMessageExpired), 200, 422},
		{acked(fault.ErrNotAuthorized), 200, 403},
		{acked(fault.ErrForbidden), 200, 403},
		{acked(fault.ErrNotFound), 200, 404},
		{acked(fault.ErrAlreadyExists), 200, 409},
		{acked(fault.ErrDuplicateRecord), 200, 409},
		{acked(fault.ErrPoisonMessage.Wrap(fault.ErrUnavailable)), 200, 422},
		{acked(fault.ErrProtocolError), 200, 422},
		{acked(fault.ErrInvalidConfig), 202, 422},
		{acked(fmt.Errorf("wrapped: %w", fault.ErrNotFound)), 200, 404},
		{ports.Settlement{Outcome: ports.SettledRetried, Err: fault.ErrUnavailable}, 200, 503},
		{ports.Settlement{Outcome: ports.SettledUnsettled, Err: fault.ErrTimeout}, 200, 503},
		{ports.Settlement{}, 200, 503},
	}
	for _, tt := range tests {
		if got := StatusFor(tt.st, tt.accepted); got != tt.want {
			t.Errorf("StatusFor(%s %v, %d) = %d, want %d", tt.st.Outcome, tt.st.Err, tt.accepted, got, tt.want)
		}
	}
}

// TestSettlementAnswers checks status, Retry-After and body for each way
// a route can end a request, through a real server.
func TestSettlementAnswers(t *testing.T) {
	acked := func(err error) ports.Settlement {
		return ports.Settlement{Outcome: ports.SettledAcked, Terminal: true, Err: err}
	}
	rerr := func(code fault.Code, class, msg string) *ResponseError {
		return &ResponseError{Code: string(code), Class: class, Message: msg}
	}
	const hidden = "the message could not be delivered and will not be retried"
	const later = "the message could not be delivered yet; send it again later"
	tests := []struct {
		name   string
		cfg    ReceiverConfig
		st     ports.Settlement
		delay  time.Duration
		want   answer
		noBody bool
	}{
		{name: "delivered", st: acked(nil),
			want: answer{Status: 200, Body: Response{Status: "accepted", ID: "m1"}}},
		{name: "persisted", cfg: ReceiverConfig{AcceptedStatus: 202}, st: acked(nil),
			want: answer{Status: 202, Body: Response{Status: "accepted", ID: "m1"}}},
		{name: "no content", cfg: ReceiverConfig{AcceptedStatus: 204}, st: acked(nil),
			want: answer{Status: 204}},
		{name: "filtered", st: acked(fault.ErrMessageFiltered),
			want: answer{Status: 200, Body: Response{Status: "filtered", ID: "m1"}}},
		{name: "rejected explains", st: acked(fault.ErrSchemaViolation.WithMessage("missing field x")),
			want: answer{Status: 422, Body: Response{Status: "rejected", ID: "m1",
				Error: rerr(fault.CodeSchemaViolation, "rejected", "SCHEMA_VIOLATION: missing field x")}}},
		{name: "too large", st: acked(fault.ErrPayloadTooLarge),
			want: answer{Status: 413, Body: Response{Status: "rejected", ID: "m1",
				Error: rerr(fault.CodePayloadTooLarge, "rejected", "PAYLOAD_TOO_LARGE: payload too large")}}},
		{name: "expired", st: acked(fault.ErrMessageExpired),
			want: answer{Status: 422, Body: Response{Status: "expired", ID: "m1",
				Error: rerr(fault.CodeMessageExpired, "expired", "MESSAGE_EXPIRED: message expired")}}},
		{name: "permanent hides details", st: acked(fault.ErrNotFound.WithMessage("queue secret-q")),
			want: answer{Status: 404, Body: Response{Status: "failed", ID: "m1",
				Error: rerr(fault.CodeNotFound, "permanent", hidden)}}},
		{name: "permanent exposed", cfg: ReceiverConfig{ExposeErrors: true}, st: acked(fault.ErrForbidden.WithMessage("acl")),
			want: answer{Status: 403, Body: Response{Status: "failed", ID: "m1",
				Error: rerr(fault.CodeForbidden, "permanent", "FORBIDDEN: acl")}}},
		{name: "retried", st: ports.Settlement{Outcome: ports.SettledRetried, Err: fault.ErrUnavailable}, delay: 3200 * time.Millisecond,
			want: answer{Status: 503, RetryAfter: "4", Body: Response{Status: "retry", ID: "m1",
				Error: rerr(fault.CodeUnavailable, "transient", later)}}},
		{name: "retried soon", st: ports.Settlement{Outcome: ports.SettledRetried, Err: fault.ErrThrottled}, delay: 10 * time.Millisecond,
			want: answer{Status: 503, RetryAfter: "1", Body: Response{Status: "retry", ID: "m1",
				Error: rerr(fault.CodeThrottled, "transient", later)}}},
		{name: "unsettled", st: ports.Settlement{Outcome: ports.SettledUnsettled, Err: fault.ErrTimeout},
			want: answer{Status: 503, RetryAfter: "1", Body: Response{Status: "unsettled", ID: "m1",
				Error: rerr(fault.CodeUnavailable, "transient", "the bridge stopped working on the message before it was delivered; send it again")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, base := startReceiver(t, tt.cfg, settling(tt.st, tt.delay, nil))
			got := do(t, post(t, base+"/publish", `{"id":"m1","subject":"s","payload":1}`))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAckWithoutSettledReport covers a delivery settled by something
// other than the runtime, which calls Ack or Retry but never Settled.
func TestAckWithoutSettledReport(t *testing.T) {
	for _, tt := range []struct {
		name   string
		settle func(ports.Delivery) error
		want   int
	}{
		{"ack", func(d ports.Delivery) error { return d.Ack(t.Context()) }, http.StatusOK},
		{"retry", func(d ports.Delivery) error { return d.Retry(t.Context(), time.Second, nil) }, http.StatusServiceUnavailable},
	} {
		t.Run(tt.name, func(t *testing.T) {
			errs := make(chan error, 1)
			_, base := startReceiver(t, ReceiverConfig{}, func(_ context.Context, d ports.Delivery) error {
				errs <- tt.settle(d)
				return nil
			})
			if got := do(t, post(t, base+"/publish", `{"subject":"s"}`)); got.Status != tt.want {
				t.Errorf("status %d, want %d", got.Status, tt.want)
			}
			if err := <-errs; err != nil {
				t.Errorf("settle: %v", err)
			}
		})
	}
}
