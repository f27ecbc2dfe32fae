// Package conformance holds reusable test suites that check a plugin
// against the contracts of core/ports: RunSender, RunBatchSender and
// RunReceiver for transports, and RunOutboxStore, RunDLQStore,
// RunLeaseStore and RunStreamLog for stores. A plugin's own tests call a suite with a
// constructor that builds a fresh harness for every subtest, so that no
// state leaks from one subtest into the next:
//
//	func TestConformance(t *testing.T) {
//		conformance.RunSender(t, func(t *testing.T) conformance.SenderHarness {
//			// connect, create two unique topics, subscribe to both ...
//			return conformance.SenderHarness{Sender: s, Target: target}
//		})
//	}
//
// The suites work against real brokers: they never sleep, every wait is
// bounded by a context deadline (Timing.Timeout), and checks that a message
// does not arrive watch for a harness-chosen quiet period (Timing.Quiet).
// Received headers may contain extra, transport-specific entries; only the
// headers the suite sent are compared.
package conformance
