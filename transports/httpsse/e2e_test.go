package httpsse

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// dropPolicy lets a route run without a DLQ store.
var dropPolicy = runtime.Policy{OnExpired: runtime.Drop, OnPermanentFailure: runtime.Drop}

// startRuntime runs routes until the test ends.
func startRuntime(t *testing.T, routes []runtime.Route, opts runtime.Options) {
	t.Helper()
	opts.StopTimeout = 5 * time.Second
	rt, err := runtime.New(routes, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- rt.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("runtime: %v", err)
		}
	})
}

func listeningReceiver(t *testing.T, cfg ReceiverConfig) *Receiver {
	t.Helper()
	cfg.Listen = "127.0.0.1:0"
	r, err := NewReceiver(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func baseURL(t *testing.T, r *Receiver) string {
	t.Helper()
	waitFor(testContext(t), t, "the receiver to listen", func() bool { return r.Addr() != "" })
	return "http://" + r.Addr()
}

// TestHTTPToSSE runs the quickstart: POST into the ingress, a route
// dispatches to the SSE sender, a subscriber reads the event.
func TestHTTPToSSE(t *testing.T) {
	ctx := testContext(t)
	sse, err := NewSSESender(SSEConfig{Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	stream := openSSE(ctx, t, "http://"+sse.Addr()+"/events/dashboard", nil)
	recv := listeningReceiver(t, ReceiverConfig{})
	startRuntime(t, []runtime.Route{{
		ID: "http-to-sse", ReceiverID: "http-in", Receiver: recv,
		Bindings: []runtime.Binding{{ID: "browser", Sender: sse, Address: "dashboard"}},
		Policy:   dropPolicy,
	}}, runtime.Options{})
	base := baseURL(t, recv)

	req := post(t, base+"/publish", `{"subject":"orders.created","payload":{"order":42},"headers":{"app":"shop"}}`)
	req.Header.Set("Idempotency-Key", "order-42")
	if a := do(t, req); a.Status != http.StatusOK || a.Body.Status != "accepted" || a.Body.ID != "order-42" {
		t.Fatalf("answer %+v", a)
	}
	ev := stream.next(ctx, t)
	env, err := ParseBody([]byte(ev.Data))
	if err != nil {
		t.Fatalf("event data %q: %v", ev.Data, err)
	}
	type got struct {
		ID, Subject, Payload string
		App, Key, Route      any
	}
	want := got{"order-42", "orders.created", `{"order":42}`, "shop", "order-42", "http-to-sse"}
	if diff := cmp.Diff(want, got{env.ID, env.Subject, string(env.PayloadView()), env.Headers["app"],
		env.Headers[IdempotencyKeyHeader], env.Headers[messaging.HeaderRouteID]}); diff != "" {
		t.Errorf("event (-want +got):\n%s", diff)
	}
}

// filterAll discards every message, as a filter processor would.
type filterAll struct{}

func (filterAll) Name() string { return "filter-all" }

func (filterAll) Process(context.Context, *messaging.Envelope, ports.ProcessorFunc) error {
	return fault.ErrMessageFiltered
}

// TestDirectHoldStatusCodes drives a route whose sender fails in each way
// and checks what the HTTP caller is told.
func TestDirectHoldStatusCodes(t *testing.T) {
	jitter := 0.0
	tests := []struct {
		name       string
		sendErr    error
		processors []ports.Processor
		body       string
		want       int
		retryAfter string
		status     string
		code       string
	}{
		{name: "delivered", want: 200, status: "accepted"},
		{name: "transient", sendErr: fault.ErrUnavailable, want: 503, retryAfter: "2", status: "retry", code: "UNAVAILABLE"},
		{name: "transient with hint", sendErr: fault.ErrThrottled.WithRetryAfter(7 * time.Second), want: 503, retryAfter: "7",
			status: "retry", code: "THROTTLED"},
		{name: "unknown error is transient", sendErr: errors.New("boom"), want: 503, retryAfter: "2", status: "retry", code: "INTERNAL"},
		{name: "permanent", sendErr: fault.ErrNotFound, want: 404, status: "failed", code: "NOT_FOUND"},
		{name: "forbidden", sendErr: fault.ErrForbidden, want: 403, status: "failed", code: "FORBIDDEN"},
		{name: "schema", sendErr: fault.ErrSchemaViolation, want: 422, status: "rejected", code: "SCHEMA_VIOLATION"},
		{name: "too large", sendErr: fault.ErrPayloadTooLarge, want: 413, status: "rejected", code: "PAYLOAD_TOO_LARGE"},
		{name: "filtered", processors: []ports.Processor{filterAll{}}, want: 200, status: "filtered"},
		{name: "expired", body: `{"subject":"s","expires_at":"2001-01-01T00:00:00Z"}`, want: 422, status: "expired",
			code: "MESSAGE_EXPIRED"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := memtransport.NewSender(memtransport.SenderOptions{Fail: func(ports.OutboundMessage) error { return tt.sendErr }})
			recv := listeningReceiver(t, ReceiverConfig{})
			startRuntime(t, []runtime.Route{{
				ID: "r", ReceiverID: "http-in", Receiver: recv, Processors: tt.processors,
				Bindings: []runtime.Binding{{ID: "b", Sender: out, Address: "x"}},
				Policy: runtime.Policy{OnExpired: runtime.Drop, OnPermanentFailure: runtime.Drop,
					Backoff: runtime.Backoff{Initial: 2 * time.Second, Jitter: &jitter}},
			}}, runtime.Options{})
			body := tt.body
			if body == "" {
				body = `{"subject":"s","payload":"p"}`
			}
			a := do(t, post(t, baseURL(t, recv)+"/publish", body))
			var code string
			if a.Body.Error != nil {
				code = a.Body.Error.Code
			}
			type result struct {
				Status                 int
				RetryAfter, Body, Code string
			}
			want := result{tt.want, tt.retryAfter, tt.status, tt.code}
			if diff := cmp.Diff(want, result{a.Status, a.RetryAfter, a.Body.Status, code}); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
		})
	}
}

// blockingSender holds every send until its context ends.
type blockingSender struct{ entered, left chan error }

func (b blockingSender) Send(ctx context.Context, _ ports.OutboundMessage) error {
	b.entered <- nil
	<-ctx.Done()
	b.left <- ctx.Err()
	return fault.ErrTimeout.Wrap(ctx.Err())
}

// TestCallerGoneLeavesUnsettled closes the client while the route sends:
// the send is cancelled and the delivery is left unsettled.
func TestCallerGoneLeavesUnsettled(t *testing.T) {
	ctx := testContext(t)
	meter := telemetry.NewMemory()
	out := blockingSender{entered: make(chan error, 1), left: make(chan error, 1)}
	recv := listeningReceiver(t, ReceiverConfig{})
	startRuntime(t, []runtime.Route{{
		ID: "r", ReceiverID: "http-in", Receiver: recv,
		Bindings: []runtime.Binding{{ID: "b", Sender: out, Address: "x"}},
		Policy:   dropPolicy,
	}}, runtime.Options{Meter: meter})
	rctx, cancel := context.WithCancel(ctx)
	req := post(t, baseURL(t, recv)+"/publish", `{"subject":"s"}`).WithContext(rctx)
	errc := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			_ = resp.Body.Close()
		}
		errc <- err
	}()
	<-out.entered
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("client: %v", err)
	}
	if err := <-out.left; !errors.Is(err, context.Canceled) {
		t.Errorf("send context ended with %v, want cancellation", err)
	}
	waitFor(ctx, t, "the route to count the delivery unsettled", func() bool {
		return meter.Value("gobridge_route_messages_unsettled_total", "r") == 1
	})
	if n := meter.Value("gobridge_route_messages_acked_total", "r") + meter.Value("gobridge_route_messages_retried_total", "r"); n != 0 {
		t.Errorf("%v deliveries settled; the abandoned one must stay unsettled", n)
	}
}

// TestWebhookIntoIngress chains a webhook sender to the HTTP ingress of
// another bridge, in both body modes: subject, ID, payload and headers
// arrive as sent.
func TestWebhookIntoIngress(t *testing.T) {
	for _, mode := range []BodyMode{BodyEnvelope, BodyRaw} {
		t.Run(string(mode), func(t *testing.T) {
			got := make(chan *messaging.Envelope, 1)
			_, base := startReceiver(t, ReceiverConfig{Body: mode, HeaderPrefix: "X-Meta-"},
				settling(ports.Settlement{Outcome: ports.SettledAcked, Terminal: true}, 0, got))
			s := newTestWebhook(t, WebhookConfig{URL: base + "/publish/", Body: mode, HeaderPrefix: "X-Meta-"})
			env := messaging.NewEnvelope("orders.created", []byte("\x00binary\xff"))
			env.SetHeader("app", "shop")
			if mode == BodyRaw {
				env.SetHeader(ContentTypeHeader, "application/octet-stream")
			}
			if err := s.Send(t.Context(), ports.OutboundMessage{Envelope: env, Address: "ignored-subject"}); err != nil {
				t.Fatal(err)
			}
			in := <-got
			type view struct {
				ID, Subject, Payload, App string
			}
			app, _ := in.HeaderString("app")
			if diff := cmp.Diff(view{env.ID, env.Subject, string(env.PayloadView()), "shop"},
				view{in.ID, in.Subject, string(in.PayloadView()), app}); diff != "" {
				t.Errorf("arrived (-sent +got):\n%s", diff)
			}
		})
	}
}
