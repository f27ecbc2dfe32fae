package runtime_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/memtransport"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/runtime"
	"github.com/gobridge-oss/gobridge/core/telemetry"
	"github.com/gobridge-oss/gobridge/core/telemetry/prom"
)

// upstreamParent is a traceparent a producer put on its message.
const (
	upstreamTrace  = "0af7651916cd43dd8448eb211c80319c"
	upstreamSpan   = "b7ad6b7169203331"
	upstreamParent = "00-" + upstreamTrace + "-" + upstreamSpan + "-01"
)

// waitSpans polls rec until it holds a span named last, and returns every
// span by name (the last one of each name wins).
func waitSpans(t *testing.T, rec *telemetry.Recorder, last string) map[string]telemetry.RecordedSpan {
	t.Helper()
	ctx := waitCtx(t)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		byName := map[string]telemetry.RecordedSpan{}
		for _, s := range rec.Spans() {
			byName[s.Name] = s
		}
		if _, ok := byName[last]; ok {
			return byName
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatalf("no %s span; have %v", last, rec.Spans())
		}
	}
}

// edge is one parent relation of the span tree: child name → parent name.
func tree(spans map[string]telemetry.RecordedSpan) map[string]string {
	byID := map[string]string{}
	for name, s := range spans {
		byID[s.SpanID] = name
	}
	out := map[string]string{}
	for name, s := range spans {
		out[name] = byID[s.ParentID] // "" for a root or a remote parent
	}
	return out
}

func traceparent(env *messaging.Envelope) string {
	v, _ := env.Headers[messaging.HeaderTraceParent].(string)
	return v
}

func TestTracedDirectRouteSpansEveryStep(t *testing.T) {
	rec := telemetry.NewRecorder()
	recv := memtransport.NewReceiver(memtransport.Options{})
	snd := memtransport.NewSender(memtransport.SenderOptions{})
	proc := procFunc{name: "tag", fn: func(ctx context.Context, env *messaging.Envelope, next ports.ProcessorFunc) error {
		return next(ctx, env)
	}}
	start(t, []runtime.Route{{ID: "r", ReceiverID: "mem", Receiver: recv, Processors: []ports.Processor{proc},
		Bindings: []runtime.Binding{{ID: "b", Sender: snd, Address: "out"}}}}, runtime.Options{Tracer: rec, DLQ: newMemDLQ()})
	in := messaging.NewEnvelope("s", []byte("p"))
	publish(t, recv, in)
	if err := snd.WaitSent(waitCtx(t), 1); err != nil {
		t.Fatal(err)
	}
	spans := waitSpans(t, rec, "gobridge.receive")
	wantTree := map[string]string{
		"gobridge.receive": "", "gobridge.process": "gobridge.receive", "gobridge.dispatch": "gobridge.process",
		"gobridge.send": "gobridge.dispatch", "gobridge.settle": "gobridge.receive",
	}
	if diff := cmp.Diff(wantTree, tree(spans)); diff != "" {
		t.Errorf("span tree (-want +got):\n%s", diff)
	}
	send := spans["gobridge.send"]
	if send.Kind != telemetry.KindProducer || spans["gobridge.receive"].Kind != telemetry.KindConsumer {
		t.Errorf("kinds: send %d, receive %d", send.Kind, spans["gobridge.receive"].Kind)
	}
	wantAttrs := map[string]any{"gobridge.route": "r", "gobridge.binding": "b", "messaging.destination.name": "out", "gobridge.attempt": int64(1)}
	if diff := cmp.Diff(wantAttrs, send.Attrs); diff != "" {
		t.Errorf("send attributes (-want +got):\n%s", diff)
	}
	if got := spans["gobridge.settle"].Attrs["gobridge.outcome"]; got != "acked" {
		t.Errorf("settle outcome = %v, want acked", got)
	}
	if got, want := traceparent(snd.Sent()[0].Envelope), "00-"+send.TraceID+"-"+send.SpanID+"-01"; got != want {
		t.Errorf("outbound traceparent = %q, want the send span's %q", got, want)
	}
	if got := traceparent(in); got != "" {
		t.Errorf("the received envelope was given traceparent %q; only the outbound copy should be", got)
	}
}

func TestTracedReceiveParentsOnlyUnderTrustedUpstream(t *testing.T) {
	for _, tc := range []struct {
		name        string
		trust       bool
		wantTrace   bool // the receive span continues the upstream trace
		wantLinks   []string
		wantParent  string
		wantTrusted int64
	}{
		{"untrusted producer is linked", false, false, []string{upstreamTrace + "/" + upstreamSpan}, "", 0},
		{"trusted upstream bridge is the parent", true, true, nil, upstreamSpan, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := telemetry.NewRecorder()
			recv := memtransport.NewReceiver(memtransport.Options{})
			snd := memtransport.NewSender(memtransport.SenderOptions{})
			start(t, []runtime.Route{{ID: "r", ReceiverID: "mem", Receiver: recv, TrustBridgeHeaders: tc.trust,
				Bindings: []runtime.Binding{{ID: "b", Sender: snd}}}}, runtime.Options{Tracer: rec, DLQ: newMemDLQ()})
			in := messaging.NewEnvelope("s", []byte("p"))
			in.SetHeader(messaging.HeaderTraceParent, upstreamParent)
			publish(t, recv, in)
			r := waitSpans(t, rec, "gobridge.receive")["gobridge.receive"]
			if got := r.TraceID == upstreamTrace; got != tc.wantTrace {
				t.Errorf("receive span in the upstream trace = %v, want %v", got, tc.wantTrace)
			}
			if r.ParentID != tc.wantParent {
				t.Errorf("receive parent = %q, want %q", r.ParentID, tc.wantParent)
			}
			if diff := cmp.Diff(tc.wantLinks, r.Links); diff != "" {
				t.Errorf("links (-want +got):\n%s", diff)
			}
			if got := r.Attrs["gobridge.trusted_upstream"]; got != tc.wantTrusted {
				t.Errorf("trusted_upstream = %v, want %d", got, tc.wantTrusted)
			}
		})
	}
}

func TestTracedOutboxContinuesTheTraceThroughTheDrain(t *testing.T) {
	rec := telemetry.NewRecorder()
	recv := memtransport.NewReceiver(memtransport.Options{})
	snd := memtransport.NewSender(memtransport.SenderOptions{})
	start(t, []runtime.Route{outboxRoute(recv, snd, runtime.Policy{})}, runtime.Options{Tracer: rec, DLQ: newMemDLQ(), Outbox: newFakeOutbox()})
	publish(t, recv, messaging.NewEnvelope("s", []byte("p")))
	if err := snd.WaitSent(waitCtx(t), 1); err != nil {
		t.Fatal(err)
	}
	spans := waitSpans(t, rec, "gobridge.outbox.drain")
	wantTree := map[string]string{
		"gobridge.receive": "", "gobridge.dispatch": "gobridge.receive", "gobridge.outbox.persist": "gobridge.dispatch",
		"gobridge.settle": "gobridge.receive", "gobridge.outbox.drain": "gobridge.outbox.persist",
		"gobridge.send": "gobridge.outbox.drain",
	}
	if diff := cmp.Diff(wantTree, tree(spans)); diff != "" {
		t.Errorf("span tree (-want +got):\n%s", diff)
	}
	persist, drain, send := spans["gobridge.outbox.persist"], spans["gobridge.outbox.drain"], spans["gobridge.send"]
	if diff := cmp.Diff([]string{persist.TraceID + "/" + persist.SpanID}, drain.Links); diff != "" {
		t.Errorf("drain links (-want +got):\n%s", diff)
	}
	if got := send.Attrs["gobridge.attempt"]; got != int64(1) {
		t.Errorf("send attempt = %v, want 1", got)
	}
	if got, want := traceparent(snd.Sent()[0].Envelope), "00-"+send.TraceID+"-"+send.SpanID+"-01"; got != want {
		t.Errorf("outbound traceparent = %q, want the send span's %q", got, want)
	}
	if send.TraceID != spans["gobridge.receive"].TraceID {
		t.Errorf("the drain's send is in trace %s, the receive in %s", send.TraceID, spans["gobridge.receive"].TraceID)
	}
}

func TestTracedFailuresRecordFaultRetryAndDLQ(t *testing.T) {
	rec := telemetry.NewRecorder()
	recv := memtransport.NewReceiver(memtransport.Options{})
	var calls int
	snd := memtransport.NewSender(memtransport.SenderOptions{Fail: func(ports.OutboundMessage) error {
		calls++
		if calls == 1 {
			return fault.ErrUnavailable.WithMessage("target down")
		}
		return fault.NewWithClass(fault.ClassPermanent, fault.CodeInvalidPayload, "bad payload")
	}})
	dlq := newMemDLQ()
	start(t, []runtime.Route{{ID: "r", ReceiverID: "mem", Receiver: recv,
		Policy:   runtime.Policy{Backoff: runtime.Backoff{Initial: time.Millisecond, Max: time.Millisecond}},
		Bindings: []runtime.Binding{{ID: "b", Sender: snd}}}}, runtime.Options{Tracer: rec, DLQ: dlq})
	publish(t, recv, messaging.NewEnvelope("s", []byte("p")))
	spans := waitSpans(t, rec, "gobridge.dlq.write")
	var retried, sends []string
	for _, s := range rec.Spans() {
		if s.Name == "gobridge.send" {
			sends = append(sends, s.Attrs["gobridge.fault.code"].(string))
		}
		if s.Name == "gobridge.receive" {
			for _, e := range s.Events {
				retried = append(retried, e.Name+":"+e.Attrs["gobridge.fault.code"].(string))
			}
		}
	}
	if diff := cmp.Diff([]string{string(fault.CodeUnavailable), string(fault.CodeInvalidPayload)}, sends); diff != "" {
		t.Errorf("send fault codes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"gobridge.retry:" + string(fault.CodeUnavailable)}, retried); diff != "" {
		t.Errorf("retry events (-want +got):\n%s", diff)
	}
	if got := tree(spans)["gobridge.dlq.write"]; got != "gobridge.settle" {
		t.Errorf("dlq span parent = %q, want gobridge.settle", got)
	}
}

// ctxSender blocks each send until its context ends, after noting the
// trace context the sender was handed.
type ctxSender struct {
	rec  *telemetry.Recorder
	seen chan string
}

func (s ctxSender) Send(ctx context.Context, _ ports.OutboundMessage) error {
	h := map[string]any{}
	s.rec.Inject(ctx, h)
	select {
	case s.seen <- traceparent(&messaging.Envelope{Headers: h}):
	default:
	}
	<-ctx.Done()
	return ctx.Err()
}

func TestTracedSendKeepsItsTimeoutAndSpan(t *testing.T) {
	rec := telemetry.NewRecorder()
	recv := memtransport.NewReceiver(memtransport.Options{})
	snd := ctxSender{rec: rec, seen: make(chan string, 1)}
	start(t, []runtime.Route{{ID: "r", ReceiverID: "mem", Receiver: recv,
		Policy:   runtime.Policy{SendTimeout: 20 * time.Millisecond, Backoff: runtime.Backoff{Initial: time.Hour}},
		Bindings: []runtime.Binding{{ID: "b", Sender: snd}}}}, runtime.Options{Tracer: rec, DLQ: newMemDLQ()})
	publish(t, recv, messaging.NewEnvelope("s", []byte("p")))
	var inSender string
	select {
	case inSender = <-snd.seen:
	case <-waitCtx(t).Done():
		t.Fatal("the sender was never called")
	}
	send := waitSpans(t, rec, "gobridge.send")["gobridge.send"]
	if got := send.Attrs["gobridge.fault.code"]; got != string(fault.CodeTimeout) {
		t.Errorf("send fault code = %v, want %s (send_timeout must still apply to a traced send)", got, fault.CodeTimeout)
	}
	if want := "00-" + send.TraceID + "-" + send.SpanID + "-01"; inSender != want {
		t.Errorf("the sender's context carries %q, want the send span %q", inSender, want)
	}
}

func TestTracedLatencyHistogramsCarryTheTraceAsExemplar(t *testing.T) {
	rec := telemetry.NewRecorder()
	meter := prom.New(prometheus.NewRegistry())
	recv := memtransport.NewReceiver(memtransport.Options{})
	snd := memtransport.NewSender(memtransport.SenderOptions{})
	start(t, []runtime.Route{{ID: "r", ReceiverID: "mem", Receiver: recv,
		Bindings: []runtime.Binding{{ID: "b", Sender: snd}}}}, runtime.Options{Tracer: rec, Meter: meter, DLQ: newMemDLQ()})
	publish(t, recv, messaging.NewEnvelope("s", []byte("p")))
	trace := waitSpans(t, rec, "gobridge.receive")["gobridge.receive"].TraceID
	// The handle histogram is observed just after the receive span ends:
	// scrape until both exemplars are there.
	scrape := func() string {
		req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		req.Header.Set("Accept", "application/openmetrics-text; version=1.0.0")
		out := httptest.NewRecorder()
		meter.Handler().ServeHTTP(out, req)
		return out.Body.String()
	}
	missing := func(body string) []string {
		var out []string
		for _, family := range []string{"gobridge_route_handle_seconds_bucket", "gobridge_route_send_seconds_bucket"} {
			found := false
			for _, line := range strings.Split(body, "\n") {
				if strings.HasPrefix(line, family) && strings.Contains(line, `# {trace_id="`+trace+`"}`) {
					found = true
				}
			}
			if !found {
				out = append(out, family)
			}
		}
		return out
	}
	ctx := waitCtx(t)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		body := scrape()
		m := missing(body)
		if len(m) == 0 {
			return
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatalf("no exemplar with trace_id %s on %v in:\n%s", trace, m, body)
		}
	}
}
