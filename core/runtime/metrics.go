package runtime

import (
	"context"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/core/ports"
	"github.com/gobridge-oss/gobridge/core/telemetry"
)

// Metric families emitted by route runners.
var (
	descReceived   = telemetry.Desc{Name: "gobridge_route_messages_received_total", Help: "Deliveries taken by the route.", Labels: []string{"route"}}
	descAcked      = telemetry.Desc{Name: "gobridge_route_messages_acked_total", Help: "Deliveries acknowledged to their source.", Labels: []string{"route"}}
	descRetried    = telemetry.Desc{Name: "gobridge_route_messages_retried_total", Help: "Deliveries handed back to their source for a delayed retry.", Labels: []string{"route"}}
	descDLQ        = telemetry.Desc{Name: "gobridge_route_messages_dead_lettered_total", Help: "Messages written to the dead-letter queue, by category.", Labels: []string{"route", "category"}}
	descDropped    = telemetry.Desc{Name: "gobridge_route_messages_dropped_total", Help: "Messages acknowledged without delivery, by reason.", Labels: []string{"route", "reason"}}
	descFenced     = telemetry.Desc{Name: "gobridge_route_fenced_total", Help: "Deliveries left with their source, unsent or unsettled, because this instance no longer held the route's lease.", Labels: []string{"route"}}
	descUnsettled  = telemetry.Desc{Name: "gobridge_route_messages_unsettled_total", Help: "Deliveries left unsettled because the bridge stopped working on them.", Labels: []string{"route"}}
	descSettleErr  = telemetry.Desc{Name: "gobridge_route_settle_errors_total", Help: "Ack or retry calls the source refused.", Labels: []string{"route"}}
	descDLQErr     = telemetry.Desc{Name: "gobridge_route_dlq_write_errors_total", Help: "DLQ writes that failed.", Labels: []string{"route"}}
	descInFlight   = telemetry.Desc{Name: "gobridge_route_in_flight", Help: "Deliveries being handled right now.", Labels: []string{"route"}}
	descHandleTime = telemetry.Desc{Name: "gobridge_route_handle_seconds", Help: "Time from hand-over to settlement.", Labels: []string{"route"}}
	descRejected   = telemetry.Desc{Name: "gobridge_route_messages_rejected_to_source_total", Help: "Messages their source dead-lettered itself instead of the bridge's DLQ, by category.", Labels: []string{"route", "category"}}
	descLeaseExt   = telemetry.Desc{Name: "gobridge_route_lease_extensions_total", Help: "Lease extensions of leased deliveries (SQS visibility, Service Bus locks) the source granted.", Labels: []string{"route"}}
	descLeaseLost  = telemetry.Desc{Name: "gobridge_route_leases_lost_total", Help: "Leased deliveries left to their source because a lease extension failed.", Labels: []string{"route"}}
	descSendErr    = telemetry.Desc{Name: "gobridge_route_send_errors_total", Help: "Failed sends, by binding and error class.", Labels: []string{"route", "binding", "class"}}

	descSent     = telemetry.Desc{Name: "gobridge_route_messages_sent_total", Help: "Messages a target accepted, by binding.", Labels: []string{"route", "binding"}}
	descFiltered = telemetry.Desc{Name: "gobridge_route_messages_filtered_total", Help: "Messages a processor filtered out, whatever on_filtered then did.", Labels: []string{"route"}}
	descExpired  = telemetry.Desc{Name: "gobridge_route_messages_expired_total", Help: "Messages found past their expiry, whatever on_expired then did.", Labels: []string{"route"}}
	descErrors   = telemetry.Desc{Name: "gobridge_route_errors_total", Help: "Failed handlings of a message, by error code (OTHER for codes core does not define); filtering is not counted.", Labels: []string{"route", "code"}}
	descSendTime = telemetry.Desc{Name: "gobridge_route_send_seconds", Help: "Duration of one Send or SendBatch call, by binding.", Labels: []string{"route", "binding"}}
	descLatency  = telemetry.Desc{Name: "gobridge_route_delivery_latency_seconds", Help: "Time from the message's creation to its delivery to a target.",
		Labels: []string{"route"}, Buckets: latencyBuckets}
)

// latencyBuckets reach an hour, since end-to-end latency includes retries
// and outbox waits.
var latencyBuckets = []float64{0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600}

// codeOther labels error codes that core/fault does not define, which keeps
// the code label's values bounded.
const codeOther = "OTHER"

// Drop reasons used as the "reason" label.
const (
	reasonFiltered          = "filtered"
	reasonRejected          = "rejected"
	reasonExpired           = "expired"
	reasonPermanent         = "permanent"
	reasonRetryUnsupported  = "retry_unsupported"
	reasonPoison            = "poison"
	reasonDLQUnavailable    = "dlq_unavailable"
	reasonOutboxUnavailable = "outbox_unavailable"
)

var dropReasons = []string{reasonFiltered, reasonRejected, reasonExpired, reasonPermanent,
	reasonRetryUnsupported, reasonPoison, reasonDLQUnavailable, reasonOutboxUnavailable}

var dlqCategories = []ports.DLQCategory{ports.DLQMaxRetries, ports.DLQPermanent, ports.DLQExpired,
	ports.DLQFiltered, ports.DLQRetryUnsupported, ports.DLQRejected}

var errorClasses = []fault.Class{fault.ClassTransient, fault.ClassPermanent, fault.ClassExpired, fault.ClassRejected}

// routeMetrics holds a route's instruments, bound once so that recording
// allocates nothing.
type routeMetrics struct {
	received, acked, retried, unsettled, settleErr, dlqErr telemetry.Counter
	fenced                                                 telemetry.Counter
	leaseExtended, leaseLost                               telemetry.Counter
	filtered, expired                                      telemetry.Counter
	inFlight                                               telemetry.Gauge
	handle, latency                                        telemetry.Histogram
	dlq, rejected                                          map[ports.DLQCategory]telemetry.Counter
	dropped                                                map[string]telemetry.Counter
	sendErr                                                map[string]map[fault.Class]telemetry.Counter
	errors                                                 map[fault.Code]telemetry.Counter
	errOther                                               telemetry.Counter
	binding                                                map[string]bindingMetrics
}

// bindingMetrics are the instruments of one binding of a route.
type bindingMetrics struct {
	sent     telemetry.Counter
	sendTime telemetry.Histogram
}

func newRouteMetrics(m telemetry.Meter, route string, bindings []Binding) routeMetrics {
	rm := routeMetrics{
		received:      m.Counter(descReceived, route),
		acked:         m.Counter(descAcked, route),
		retried:       m.Counter(descRetried, route),
		unsettled:     m.Counter(descUnsettled, route),
		fenced:        m.Counter(descFenced, route),
		settleErr:     m.Counter(descSettleErr, route),
		dlqErr:        m.Counter(descDLQErr, route),
		leaseExtended: m.Counter(descLeaseExt, route),
		leaseLost:     m.Counter(descLeaseLost, route),
		filtered:      m.Counter(descFiltered, route),
		expired:       m.Counter(descExpired, route),
		inFlight:      m.Gauge(descInFlight, route),
		handle:        m.Histogram(descHandleTime, route),
		latency:       m.Histogram(descLatency, route),
		dlq:           make(map[ports.DLQCategory]telemetry.Counter),
		rejected:      make(map[ports.DLQCategory]telemetry.Counter),
		dropped:       make(map[string]telemetry.Counter),
		sendErr:       make(map[string]map[fault.Class]telemetry.Counter),
		errors:        make(map[fault.Code]telemetry.Counter),
		errOther:      m.Counter(descErrors, route, codeOther),
		binding:       make(map[string]bindingMetrics, len(bindings)),
	}
	for _, c := range dlqCategories {
		rm.dlq[c] = m.Counter(descDLQ, route, string(c))
		rm.rejected[c] = m.Counter(descRejected, route, string(c))
	}
	for _, r := range dropReasons {
		rm.dropped[r] = m.Counter(descDropped, route, r)
	}
	for _, c := range fault.Codes() {
		rm.errors[c] = m.Counter(descErrors, route, string(c))
	}
	for _, b := range bindings {
		byClass := make(map[fault.Class]telemetry.Counter, len(errorClasses))
		for _, c := range errorClasses {
			byClass[c] = m.Counter(descSendErr, route, b.ID, c.String())
		}
		rm.sendErr[b.ID] = byClass
		rm.binding[b.ID] = bindingMetrics{
			sent:     m.Counter(descSent, route, b.ID),
			sendTime: m.Histogram(descSendTime, route, b.ID),
		}
	}
	return rm
}

// sendError returns the send-error counter of binding for err. An error
// whose class the fault package does not name counts as transient, which is
// how it is settled.
func (m *routeMetrics) sendError(binding string, err error) telemetry.Counter {
	byClass := m.sendErr[binding]
	if c, ok := byClass[fault.ClassOf(err)]; ok {
		return c
	}
	return byClass[fault.ClassTransient]
}

// failed counts one failed handling of a message under err's code. A
// filtered message is an intended outcome, counted as filtered instead.
func (m *routeMetrics) failed(err error) {
	code := fault.CodeOf(err)
	if code == fault.CodeMessageFiltered {
		return
	}
	if c, ok := m.errors[code]; ok {
		c.Add(1)
		return
	}
	m.errOther.Add(1)
}

// ended counts a message that will not be retried under the filtered or
// expired counter when cat says it was filtered or expired.
func (m *routeMetrics) ended(cat ports.DLQCategory) {
	switch cat {
	case ports.DLQFiltered:
		m.filtered.Add(1)
	case ports.DLQExpired:
		m.expired.Add(1)
	}
}

// delivered records a message a target accepted: its end-to-end latency
// from creation, when the envelope says when that was.
func (m *routeMetrics) delivered(env *messaging.Envelope, now time.Time) {
	if env == nil || env.CreatedAt.IsZero() {
		return
	}
	m.latency.Observe(max(now.Sub(env.CreatedAt), 0).Seconds())
}

// observeHandled records the handling time of a delivery and, when it was
// delivered straight to its targets (direct_hold) and acknowledged, its
// end-to-end latency.
func (w *worker) observeHandled(env *messaging.Envelope, err error, start time.Time) {
	rn := w.rn
	now := rn.opts.Clock.Now()
	telemetry.ObserveWithTrace(rn.m.handle, now.Sub(start).Seconds(), w.traceID)
	if err == nil && !rn.outbox && w.outcome.Outcome == ports.SettledAcked {
		rn.m.delivered(env, now)
	}
}

// Metric families emitted by outbox drainers, one series per route and
// binding (the partition).
var (
	descDrained     = telemetry.Desc{Name: "gobridge_outbox_delivered_total", Help: "Outbox records delivered and completed.", Labels: []string{"route", "binding"}}
	descReplayed    = telemetry.Desc{Name: "gobridge_outbox_replayed_total", Help: "Outbox records scheduled for another attempt.", Labels: []string{"route", "binding"}}
	descClaimErrors = telemetry.Desc{Name: "gobridge_outbox_store_errors_total", Help: "Outbox claims, completes or replays the store refused.", Labels: []string{"route", "binding"}}
	descDepth       = telemetry.Desc{Name: "gobridge_outbox_depth", Help: "Records of the partition not yet completed, claimed or not.", Labels: []string{"route", "binding"}}
	descDrainLag    = telemetry.Desc{Name: "gobridge_outbox_drain_lag_seconds", Help: "Age of the oldest record in the last claimed batch; 0 when the claim found nothing due.", Labels: []string{"route", "binding"}}
	descLeaseRole   = telemetry.Desc{Name: "gobridge_lease_role", Help: "1 for the drainer's current lease role (standalone, active or standby), 0 for the others.", Labels: []string{"route", "binding", "role"}}
)

// Lease roles, as in the readiness probe.
const (
	roleStandalone = "standalone"
	roleActive     = "active"
	roleStandby    = "standby"
)

var leaseRoles = []string{roleStandalone, roleActive, roleStandby}

// drainMetrics are one partition's instruments.
type drainMetrics struct {
	delivered, replayed, claimErrors telemetry.Counter
	depth, lag                       telemetry.Gauge
	roles                            map[string]telemetry.Gauge
	bm                               bindingMetrics
	timed                            bool
	lastDepth                        time.Time // when depth was last read
}

func newDrainMetrics(rn *runner, b *Binding) drainMetrics {
	m, route := rn.opts.Meter, rn.route.ID
	dm := drainMetrics{
		delivered:   m.Counter(descDrained, route, b.ID),
		replayed:    m.Counter(descReplayed, route, b.ID),
		claimErrors: m.Counter(descClaimErrors, route, b.ID),
		depth:       m.Gauge(descDepth, route, b.ID),
		lag:         m.Gauge(descDrainLag, route, b.ID),
		roles:       make(map[string]telemetry.Gauge, len(leaseRoles)),
		bm:          rn.m.binding[b.ID],
		timed:       rn.timed,
	}
	for _, r := range leaseRoles {
		dm.roles[r] = m.Gauge(descLeaseRole, route, b.ID, r)
	}
	return dm
}

// setRole marks role as the drainer's current one; "" clears every role
// (the drainer stopped).
func (dm *drainMetrics) setRole(role string) {
	for r, g := range dm.roles {
		if r == role {
			g.Set(1)
		} else {
			g.Set(0)
		}
	}
}

// recordDelivered counts a record whose target accepted it.
func (dr *drainer) recordDelivered(r ports.OutboxRecord) {
	dr.m.delivered.Add(1)
	dr.m.bm.sent.Add(1)
	if dr.m.timed {
		dr.rn.m.delivered(r.Envelope, dr.rn.opts.Clock.Now())
	}
}

// observeClaim sets the drain lag from a claimed batch.
func (dr *drainer) observeClaim(recs []ports.OutboxRecord) {
	if !dr.m.timed {
		return
	}
	now := dr.rn.opts.Clock.Now()
	var lag time.Duration
	for _, r := range recs {
		if !r.CreatedAt.IsZero() {
			lag = max(lag, now.Sub(r.CreatedAt))
		}
	}
	dr.m.lag.Set(lag.Seconds())
}

// observeDepth reads the partition's depth, at most once per
// DepthCacheTTL, since it costs a store query.
func (dr *drainer) observeDepth(ctx context.Context) {
	if !dr.m.timed {
		return
	}
	now := dr.rn.opts.Clock.Now()
	if !dr.m.lastDepth.IsZero() && now.Sub(dr.m.lastDepth) < dr.pol.DepthCacheTTL {
		return
	}
	dr.m.lastDepth = now
	if d, err := dr.store.Depth(ctx, dr.part); err == nil {
		dr.m.depth.Set(float64(d))
	}
}

// sendStart returns when a send call starts, or the zero time when no real
// meter wants send times, so that the path without metrics reads no clock.
func (rn *runner) sendStart() time.Time {
	if !rn.timed {
		return time.Time{}
	}
	return rn.opts.Clock.Now()
}

// sendTimed records the duration of a send call that began at start (a
// sendStart value) in the binding's send-time histogram.
// traceID, when not empty, is the sampled trace of the send (an exemplar).
func (rn *runner) sendTimed(bindingID string, start time.Time, traceID string) {
	if start.IsZero() {
		return
	}
	telemetry.ObserveWithTrace(rn.m.binding[bindingID].sendTime, rn.opts.Clock.Now().Sub(start).Seconds(), traceID)
}

// sendEnd is sendTimed for a direct send, which also counts the message as
// sent when the target accepted it (a drained record is counted once it is
// settled, in recordDelivered).
func (rn *runner) sendEnd(bindingID string, start time.Time, err error, traceID string) {
	if start.IsZero() {
		return
	}
	bm := rn.bindingMetrics(bindingID)
	telemetry.ObserveWithTrace(bm.sendTime, rn.opts.Clock.Now().Sub(start).Seconds(), traceID)
	if err == nil {
		bm.sent.Add(1)
	}
}

// bindingMetrics returns the instruments of the binding called id, found
// as binding finds the binding: by scanning a route's few, else by hash.
func (rn *runner) bindingMetrics(id string) bindingMetrics {
	if len(rn.byIndex) <= scanBindings {
		for i, b := range rn.byIndex {
			if b.ID == id {
				return rn.bms[i]
			}
		}
	}
	return rn.m.binding[id]
}
