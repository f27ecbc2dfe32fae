//go:build linux

package main

import (
	"fmt"
	"testing"
	"time"
)

// The cluster tests again, with the outbox, the DLQ and the leases in
// DynamoDB (minidyn over HTTP, through tools/dynamoemu) instead of a
// shared SQLite file: the instances share nothing but the table set, as
// instances on separate hosts would. GOBRIDGE_CLUSTER_MESSAGES and
// GOBRIDGE_CLUSTER_KILLS scale the kill test as they do on SQLite.

// dynamoCluster keeps a test cluster's stores in a fresh table set of the
// emulator at endpoint. DynamoDB has no lock a paused process could hold,
// so a paused owner is always taken over within lease_ttl + 1s.
//
// The store waits clock_skew past a lease's expiry before another owner
// may take it (2s by default, for machines whose clocks drift apart); the
// test's instances share one host and one clock, so it is set to 250ms.
// On separate hosts a failover takes up to lease_ttl + clock_skew + one
// acquire poll.
func dynamoCluster(endpoint string) clusterStore {
	prefix := fmt.Sprintf("cl%d_", time.Now().UnixNano())
	store := fmt.Sprintf(`{type: dynamodb, settings: {endpoint: %q, region: us-east-1, access_key_id: test, secret_access_key: test, table_prefix: %s, create_tables: true, stale_claim_age: 3s, clock_skew: 250ms}}`,
		endpoint, prefix)
	return clusterStore{
		name:         "dynamodb",
		stores:       "\n  outbox: " + store + "\n  dlq: " + store + "\n  lease: " + store,
		fencedMetric: "gobridge_dynamodb_fenced_writes_total",
	}
}

// TestClusterFailoverOnKillDynamoDB is TestClusterFailoverOnKill on
// DynamoDB: three instances, the active one SIGKILLed again and again
// under load; a standby takes over within lease_ttl + 1s each time,
// nothing accepted is lost, duplicates stay below one in-flight batch per
// kill.
func TestClusterFailoverOnKillDynamoDB(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for a minute")
	}
	testFailoverOnKill(t, dynamoCluster(dynamoEmulator(t)))
}

// TestClusterPausedOwnerDeliversNothingOnWakeDynamoDB is
// TestClusterPausedOwnerDeliversNothingOnWake on DynamoDB: the active
// instance is SIGSTOPped past its lease, a standby takes over within
// lease_ttl + 1s, and the paused one, resumed, completes and sends
// nothing more than what its transport already had in hand.
func TestClusterPausedOwnerDeliversNothingOnWakeDynamoDB(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for half a minute")
	}
	testPausedOwner(t, dynamoCluster(dynamoEmulator(t)))
}

// TestClusterMQTTExclusiveFailoverOnKillDynamoDB is
// TestClusterMQTTExclusiveFailoverOnKill on DynamoDB: an exclusive MQTT
// source in direct_hold and an HTTP route through the outbox, the active
// instance SIGKILLed every few seconds; nothing published or accepted is
// lost. Its default is 1000 MQTT messages (half the SQLite test's) to stay
// near a minute beside the package's other cluster tests.
func TestClusterMQTTExclusiveFailoverOnKillDynamoDB(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for a minute")
	}
	testMQTTFailoverOnKill(t, dynamoCluster(dynamoEmulator(t)), 1000)
}

// TestClusterMQTTExclusivePausedOwnerDynamoDB is
// TestClusterMQTTExclusivePausedOwner on DynamoDB: the active instance is
// SIGSTOPped past its lease and resumed; a standby takes over within
// lease_ttl + 1s, and what the woken one still sends is delivered again by
// the new owner. Its log line has the store's fenced writes
// (gobridge_dynamodb_fenced_writes_total) of the woken instance.
func TestClusterMQTTExclusivePausedOwnerDynamoDB(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for a minute")
	}
	testMQTTPausedOwner(t, dynamoCluster(dynamoEmulator(t)), 1000)
}
