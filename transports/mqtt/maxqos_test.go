package mqtt

import (
	"testing"

	"github.com/gobridge-oss/gobridge/core/fault"
	"github.com/gobridge-oss/gobridge/core/ports"
)

// TestSenderOnBrokerThatGrantsLowerQoS publishes against private Mosquitto
// processes configured with max_qos, so that their CONNACK announces a
// Maximum QoS. A QoS 1 or 2 sender on a broker that grants only QoS 0 used
// to publish at QoS 0 and report success without any acknowledgement; it
// now fails with the permanent QOS_NOT_SUPPORTED. QoS 2 on a QoS 1 broker
// is lowered and still acknowledged (PUBACK), and what the broker grants
// is published as usual.
func TestSenderOnBrokerThatGrantsLowerQoS(t *testing.T) {
	brokers := map[int]*privateBroker{0: startPrivateBroker(t, "max_qos 0"), 1: startPrivateBroker(t, "max_qos 1")}
	tests := []struct {
		name      string
		brokerMax int
		qos       int
		want      fault.Code // empty: success
	}{
		{"qos 1 on a QoS 0 broker", 0, 1, fault.CodeQoSNotSupported},
		{"qos 2 on a QoS 0 broker", 0, 2, fault.CodeQoSNotSupported},
		{"qos 0 on a QoS 0 broker", 0, 0, ""},
		{"qos 2 on a QoS 1 broker is lowered to 1", 1, 2, ""},
		{"qos 1 on a QoS 1 broker", 1, 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testContext(t)
			s := startSession(t, SessionConfig{URLs: []string{brokers[tt.brokerMax].url()}})
			if got := s.limits().maxQoS; int(got) != tt.brokerMax {
				t.Fatalf("the broker announced Maximum QoS %d, want %d (is max_qos supported?)", got, tt.brokerMax)
			}
			snd, err := NewSender(s, SenderConfig{DefaultTopic: "maxqos/" + unique(), QoS: IntPtr(tt.qos)})
			if err != nil {
				t.Fatal(err)
			}
			err = snd.Send(ctx, ports.OutboundMessage{Envelope: numberedEnvelope(1)})
			if got := fault.CodeOf(err); err != nil && got != tt.want || err == nil && tt.want != "" {
				t.Fatalf("Send = %v, want code %q", err, tt.want)
			}
			if tt.want != "" && fault.ClassOf(err) != fault.ClassPermanent {
				t.Errorf("class %s, want permanent", fault.ClassOf(err))
			}
		})
	}
}
