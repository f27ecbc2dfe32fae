package mqtt

import (
	"fmt"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// ViolationKind names what the ingress guard found wrong.
type ViolationKind string

// Violation kinds.
const (
	// ViolationOversized: a packet larger than the Maximum Packet Size this
	// session announced, which a compliant broker never sends.
	ViolationOversized ViolationKind = "oversized_packet"
	// ViolationMalformed: a packet whose structure is broken (Remaining
	// Length, packet type, PUBLISH fields or properties).
	ViolationMalformed ViolationKind = "malformed_packet"
)

// IngressViolation is the error that ends a session whose broker sent a
// packet the ingress guard refuses. It is terminal: the session does not
// reconnect, its receivers' Run return it and its sends fail with it.
// It carries sizes and a short reason, never packet content, so it is
// safe to log.
type IngressViolation struct {
	Kind ViolationKind
	// PacketType is the MQTT control packet type (3 for PUBLISH), 0 when
	// the type itself was the problem.
	PacketType byte
	// Size is the packet's total size in bytes when known, else 0.
	Size int
	// Limit is the announced Maximum Packet Size.
	Limit int
	// Reason is a fixed, content-free description.
	Reason string
}

// Error describes the violation.
func (v *IngressViolation) Error() string {
	if v.Kind == ViolationOversized {
		return fmt.Sprintf("mqtt ingress guard: packet type %d of %d bytes exceeds the announced maximum of %d bytes", v.PacketType, v.Size, v.Limit)
	}
	return fmt.Sprintf("mqtt ingress guard: malformed packet type %d: %s", v.PacketType, v.Reason)
}

// Unwrap classifies the violation as a permanent PROTOCOL_ERROR.
func (v *IngressViolation) Unwrap() error { return fault.ErrProtocolError }

func malformed(pt byte, reason string) *IngressViolation {
	return &IngressViolation{Kind: ViolationMalformed, PacketType: pt, Reason: reason}
}
