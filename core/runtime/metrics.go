package runtime

import (
	"github.com/gobridge-oss/gobridge/core/fault"
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
	descUnsettled  = telemetry.Desc{Name: "gobridge_route_messages_unsettled_total", Help: "Deliveries left unsettled because the bridge stopped working on them.", Labels: []string{"route"}}
	descSettleErr  = telemetry.Desc{Name: "gobridge_route_settle_errors_total", Help: "Ack or retry calls the source refused.", Labels: []string{"route"}}
	descDLQErr     = telemetry.Desc{Name: "gobridge_route_dlq_write_errors_total", Help: "DLQ writes that failed.", Labels: []string{"route"}}
	descInFlight   = telemetry.Desc{Name: "gobridge_route_in_flight", Help: "Deliveries being handled right now.", Labels: []string{"route"}}
	descHandleTime = telemetry.Desc{Name: "gobridge_route_handle_seconds", Help: "Time from hand-over to settlement.", Labels: []string{"route"}}
	descSendErr    = telemetry.Desc{Name: "gobridge_route_send_errors_total", Help: "Failed sends, by binding and error class.", Labels: []string{"route", "binding", "class"}}
)

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
	inFlight                                               telemetry.Gauge
	handle                                                 telemetry.Histogram
	dlq                                                    map[ports.DLQCategory]telemetry.Counter
	dropped                                                map[string]telemetry.Counter
	sendErr                                                map[string]map[fault.Class]telemetry.Counter
}

func newRouteMetrics(m telemetry.Meter, route string, bindings []Binding) routeMetrics {
	rm := routeMetrics{
		received:  m.Counter(descReceived, route),
		acked:     m.Counter(descAcked, route),
		retried:   m.Counter(descRetried, route),
		unsettled: m.Counter(descUnsettled, route),
		settleErr: m.Counter(descSettleErr, route),
		dlqErr:    m.Counter(descDLQErr, route),
		inFlight:  m.Gauge(descInFlight, route),
		handle:    m.Histogram(descHandleTime, route),
		dlq:       make(map[ports.DLQCategory]telemetry.Counter),
		dropped:   make(map[string]telemetry.Counter),
		sendErr:   make(map[string]map[fault.Class]telemetry.Counter),
	}
	for _, c := range dlqCategories {
		rm.dlq[c] = m.Counter(descDLQ, route, string(c))
	}
	for _, r := range dropReasons {
		rm.dropped[r] = m.Counter(descDropped, route, r)
	}
	for _, b := range bindings {
		byClass := make(map[fault.Class]telemetry.Counter, len(errorClasses))
		for _, c := range errorClasses {
			byClass[c] = m.Counter(descSendErr, route, b.ID, c.String())
		}
		rm.sendErr[b.ID] = byClass
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
