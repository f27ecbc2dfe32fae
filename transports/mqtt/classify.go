package mqtt

import (
	"context"
	"errors"
	"fmt"

	"github.com/eclipse/paho.golang/autopaho"
	"github.com/eclipse/paho.golang/paho"
	"github.com/eclipse/paho.golang/paho/session"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// errInvalidTopic is INVALID_TOPIC as a permanent error: a bad address is
// a routing problem, so the message goes to the DLQ for a later replay
// instead of being dropped as a rejected payload would be.
var errInvalidTopic = fault.NewWithClass(fault.ClassPermanent, fault.CodeInvalidTopic, "invalid topic")

// reasonFault maps an MQTT v5 reason code of a PUBACK, PUBREC or
// DISCONNECT (0x80 and above) to a classified error.
func reasonFault(code byte) *fault.BridgeError {
	var e *fault.BridgeError
	switch code {
	case 0x87: // Not authorized
		e = fault.ErrNotAuthorized
	case 0x90: // Topic Name invalid
		e = errInvalidTopic
	case 0x91: // Packet Identifier in use
		e = fault.ErrBrokerBusy
	case 0x97: // Quota exceeded
		e = fault.ErrThrottled
	case 0x99: // Payload format invalid
		e = fault.ErrInvalidPayload
	case 0x95: // Packet too large
		e = fault.ErrPayloadTooLarge
	case 0x9A: // Retain not supported
		e = fault.ErrNotSupported
	case 0x9B: // QoS not supported
		e = fault.ErrQoSNotSupported
	case 0x89, 0x88, 0x8B: // Server busy, unavailable, shutting down
		e = fault.ErrUnavailable
	case 0x80, 0x83: // Unspecified, implementation specific
		e = fault.ErrUnavailable
	default:
		e = fault.ErrProtocolError
	}
	return e.WithMessage(fmt.Sprintf("broker answered reason code 0x%02X", code)).With("reason_code", int(code))
}

// subscribeFault maps a SUBACK failure code.
func subscribeFault(code byte) *fault.BridgeError {
	switch code {
	case 0x8F: // Topic Filter invalid
		return errInvalidTopic.WithMessage("broker refused the topic filter (0x8F)")
	case 0x9E, 0xA1, 0xA2: // shared, subscription ids, wildcards not supported
		return fault.ErrNotSupported.WithMessage(fmt.Sprintf("broker does not support this subscription (0x%02X)", code))
	}
	return reasonFault(code)
}

// connackFault maps a refused CONNACK.
func connackFault(code byte) *fault.BridgeError {
	switch code {
	case 0x86, 0x87, 0x8C: // bad credentials, not authorized, bad auth method
		return fault.ErrNotAuthorized.WithMessage(fmt.Sprintf("broker refused the connection (0x%02X)", code))
	case 0x85: // client identifier not valid
		return fault.ErrInvalidConfig.WithMessage("broker refused the client id (0x85)")
	case 0x84: // unsupported protocol version
		return fault.ErrNotSupported.WithMessage("broker does not speak MQTT v5 (0x84)")
	}
	return fault.ErrUnavailable.WithMessage(fmt.Sprintf("broker refused the connection (0x%02X)", code))
}

// publishFault classifies an error returned by a publish, with the
// response when there was one.
func publishFault(ctx context.Context, resp *paho.PublishResponse, err error) error {
	if resp != nil && resp.ReasonCode >= 0x80 {
		return reasonFault(resp.ReasonCode)
	}
	if err == nil {
		return nil
	}
	switch {
	case ctx.Err() != nil:
		return fault.ErrTimeout.WithMessage("mqtt publish not acknowledged in time").Wrap(ctx.Err())
	case errors.Is(err, context.DeadlineExceeded):
		return fault.ErrTimeout.WithMessage("mqtt publish not acknowledged within packet_timeout").Wrap(err)
	case errors.Is(err, paho.ErrInvalidArguments):
		return fault.ErrNotSupported.WithMessage("the broker does not support this publish (retain or QoS)").Wrap(err)
	case errors.Is(err, autopaho.ConnectionDownError), errors.Is(err, session.ErrNoConnection),
		errors.Is(err, paho.ErrConnectionLost):
		return fault.ErrConnectionLost.WithMessage("mqtt publish").Wrap(err)
	}
	return fault.ErrConnectionLost.WithMessage("mqtt publish").Wrap(err)
}
