package mqtt

import (
	"fmt"

	"github.com/gobridge-oss/gobridge/core/messaging"
)

// numberedEnvelope builds the i-th test message.
func numberedEnvelope(i int) *messaging.Envelope {
	env := messaging.NewEnvelope("test.numbered", fmt.Appendf(nil, "m-%05d", i))
	env.SetHeader("n", fmt.Sprint(i))
	return env
}
