package httpsse

import "github.com/gobridge-oss/gobridge/core/telemetry"

// receiverMetrics are the ingress instruments, bound to the receiver name.
type receiverMetrics struct {
	requests  map[string]telemetry.Counter // by status class: 2xx, 4xx, 5xx
	abandoned telemetry.Counter
	refused   telemetry.Counter
}

func newReceiverMetrics(m telemetry.Meter, name string) receiverMetrics {
	req := telemetry.Desc{Name: "gobridge_http_ingress_requests_total",
		Help: "Ingress requests answered, by status class.", Labels: []string{"receiver", "status"}}
	rm := receiverMetrics{requests: map[string]telemetry.Counter{}}
	for _, c := range []string{"2xx", "4xx", "5xx"} {
		rm.requests[c] = m.Counter(req, name, c)
	}
	rm.abandoned = m.Counter(telemetry.Desc{Name: "gobridge_http_ingress_abandoned_total",
		Help:   "Deliveries abandoned because the caller went away or the hold timeout passed.",
		Labels: []string{"receiver"}}, name)
	rm.refused = m.Counter(telemetry.Desc{Name: "gobridge_http_ingress_emit_refused_total",
		Help: "Requests answered 503 because the route did not take them.", Labels: []string{"receiver"}}, name)
	return rm
}

func (rm receiverMetrics) answered(status int) {
	switch {
	case status < 300:
		rm.requests["2xx"].Add(1)
	case status < 500:
		rm.requests["4xx"].Add(1)
	default:
		rm.requests["5xx"].Add(1)
	}
}

// sseMetrics are the SSE sender's instruments.
type sseMetrics struct {
	subscribers telemetry.Gauge
	events      telemetry.Counter
	slow        telemetry.Counter
	unheard     telemetry.Counter
	refused     telemetry.Counter
	replayed    telemetry.Counter
	replayGaps  telemetry.Counter
	evicted     telemetry.Counter
	// The replay log.
	appended       telemetry.Counter
	appendFailures telemetry.Counter
	trimmed        telemetry.Counter
	trimmedBytes   telemetry.Counter
	gaps           telemetry.Counter
	unknownIDs     telemetry.Counter
}

func newSSEMetrics(m telemetry.Meter, name string) sseMetrics {
	l := []string{"sender"}
	return sseMetrics{
		subscribers: m.Gauge(telemetry.Desc{Name: "gobridge_sse_subscribers",
			Help: "Open SSE streams.", Labels: l}, name),
		events: m.Counter(telemetry.Desc{Name: "gobridge_sse_events_total",
			Help: "Events accepted by the SSE sender.", Labels: l}, name),
		slow: m.Counter(telemetry.Desc{Name: "gobridge_sse_slow_clients_disconnected_total",
			Help: "Streams closed because the client did not keep up.", Labels: l}, name),
		unheard: m.Counter(telemetry.Desc{Name: "gobridge_sse_events_without_subscriber_total",
			Help: "Events accepted while their channel had no subscriber.", Labels: l}, name),
		refused: m.Counter(telemetry.Desc{Name: "gobridge_sse_events_refused_total",
			Help: "Sends refused because their channel had no subscriber.", Labels: l}, name),
		replayed: m.Counter(telemetry.Desc{Name: "gobridge_sse_events_replayed_total",
			Help: "Events resent to clients resuming with Last-Event-ID.", Labels: l}, name),
		replayGaps: m.Counter(telemetry.Desc{Name: "gobridge_sse_replay_gaps_total",
			Help: "Resumes that asked for events the replay log no longer keeps.", Labels: l}, name),
		evicted: m.Counter(telemetry.Desc{Name: "gobridge_sse_channels_evicted_total",
			Help: "Idle channels whose in-memory state was dropped to stay within max_channels.", Labels: l}, name),
		appended: m.Counter(telemetry.Desc{Name: "gobridge_sse_log_appended_total",
			Help: "Events appended to the SSE replay logs.", Labels: l}, name),
		appendFailures: m.Counter(telemetry.Desc{Name: "gobridge_sse_log_append_failures_total",
			Help: "Replay log appends that failed (their sends failed too).", Labels: l}, name),
		trimmed: m.Counter(telemetry.Desc{Name: "gobridge_sse_log_trimmed_total",
			Help: "Events trimmed from the SSE replay logs to stay within their bounds.", Labels: l}, name),
		trimmedBytes: m.Counter(telemetry.Desc{Name: "gobridge_sse_log_trimmed_bytes_total",
			Help: "Bytes of event data trimmed from the SSE replay logs.", Labels: l}, name),
		gaps: m.Counter(telemetry.Desc{Name: "gobridge_sse_gap_events_total",
			Help: "gobridge.gap events sent to resuming clients.", Labels: l}, name),
		unknownIDs: m.Counter(telemetry.Desc{Name: "gobridge_sse_resume_unknown_id_total",
			Help: "Resumes whose Last-Event-ID is newer than the replay log's newest event.", Labels: l}, name),
	}
}

// webhookMetrics are the webhook sender's instruments.
type webhookMetrics struct {
	outcome  map[string]telemetry.Counter // ok, transient, permanent
	duration telemetry.Histogram
}

func newWebhookMetrics(m telemetry.Meter, name string) webhookMetrics {
	d := telemetry.Desc{Name: "gobridge_webhook_requests_total",
		Help: "Webhook requests, by outcome.", Labels: []string{"sender", "outcome"}}
	wm := webhookMetrics{outcome: map[string]telemetry.Counter{}}
	for _, o := range []string{"ok", "transient", "permanent"} {
		wm.outcome[o] = m.Counter(d, name, o)
	}
	wm.duration = m.Histogram(telemetry.Desc{Name: "gobridge_webhook_request_seconds",
		Help: "Webhook request latency.", Labels: []string{"sender"}}, name)
	return wm
}
