package config

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// baseYAML is a valid configuration that each case breaks in one way.
const baseYAML = `
bridge: {id: b}
sessions:
  - {id: sess, type: mqtt}
receivers:
  - {id: in, type: memory}
senders:
  - {id: out, type: memory}
  - {id: out2, type: memory, session_id: sess}
bindings:
  - {id: b1, sender_id: out, address: a1}
  - {id: b2, sender_id: out, address: a2}
processors:
  p1: {type: filter}
routes:
  - id: r0
    receiver_id: in
    bindings: [b1, b2]
    processors: [p1]
stores:
  outbox: {type: memory}
  dlq: {type: memory}
  lease: {type: memory}
http:
  admin_addr: 127.0.0.1:8080
  monitor_addr: 127.0.0.1:8081
  admin_api_key: 0123456789abcdef
`

func base(t *testing.T) *File {
	t.Helper()
	f, err := Parse([]byte(baseYAML), WithEnv(nil))
	if err != nil {
		t.Fatalf("base config: %v", err)
	}
	return f
}

func session() *RouteSession {
	return &RouteSession{SessionID: "sess", SenderID: "out2"}
}

func withSession(f *File, mut func(s *RouteSession)) {
	s := session()
	mut(s)
	f.Routes[0].Session = s
}

func rules(rs ...Rule) *Resolver { return &Resolver{Type: ResolverRules, Rules: rs} }

func cond(field, op string, v any) Rule {
	return Rule{BindingID: "b1", Match: []Condition{{Field: field, Operator: op, Value: v}}}
}

func TestValidateBase(t *testing.T) {
	warns, err := base(t).ValidateWith(preview)
	if err != nil {
		t.Fatal(err)
	}
	// Core knows no store type: the warnings about a store that loses its
	// data at stop come from the service, by the factory's locality.
	var got []string
	for _, w := range warns {
		got = append(got, w.Path)
	}
	if diff := cmp.Diff([]string(nil), got); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// TestValidateRules breaks the base configuration once per rule and checks
// the one problem that results.
func TestValidateRules(t *testing.T) {
	r0 := func(f *File) *Route { return &f.Routes[0] }
	tests := []struct {
		name string
		mut  func(f *File)
		want Problem
	}{
		{"bridge id", func(f *File) { f.Bridge.ID = "" }, Problem{"bridge.id", "bridge.id is required"}},
		{"deployment", func(f *File) { f.Bridge.Deployment = "cloud" }, Problem{"bridge.deployment", "must be one of: standalone, clustered"}},
		{"shutdown timeout", func(f *File) { f.Bridge.ShutdownTimeout = -time.Second }, Problem{"bridge.shutdown_timeout", "must not be negative, got -1s"}},
		{"negative deliver_after", func(f *File) { f.Bindings[0].DeliverAfter = -time.Second }, Problem{"bindings[0].deliver_after", "must not be negative, got -1s"}},
		{"receiver id", func(f *File) { f.Receivers = append(f.Receivers, Component{Type: "x"}) }, Problem{"receivers[1].id", "id is required"}},
		{"duplicate receiver", func(f *File) { f.Receivers = append(f.Receivers, Component{ID: "in", Type: "x"}) }, Problem{"receivers[1].id", `duplicate id "in"`}},
		{"duplicate sender", func(f *File) { f.Senders[1].ID = "out" }, Problem{"senders[1].id", `duplicate id "out"`}},
		{"duplicate session", func(f *File) { f.Sessions = append(f.Sessions, Component{ID: "sess", Type: "x"}) }, Problem{"sessions[1].id", `duplicate id "sess"`}},
		{"duplicate binding", func(f *File) { f.Bindings[1].ID = "b1"; r0(f).Bindings = []string{"b1"} }, Problem{"bindings[1].id", `duplicate id "b1"`}},
		{"duplicate route", func(f *File) { f.Routes = append(f.Routes, *r0(f)) }, Problem{"routes[1].id", `duplicate id "r0"`}},
		{"component type", func(f *File) { f.Senders[0].Type = "" }, Problem{"senders[0].type", "type is required"}},
		{"receiver session", func(f *File) { f.Receivers[0].SessionID = "x" }, Problem{"receivers[0].session_id", `session_id "x" not found in sessions`}},
		{"sender session", func(f *File) { f.Senders[0].SessionID = "x" }, Problem{"senders[0].session_id", `session_id "x" not found in sessions`}},
		{"session on session", func(f *File) { f.Sessions[0].SessionID = "sess" }, Problem{"sessions[0].session_id", "a session cannot run on another session"}},
		{"binding sender required", func(f *File) { f.Bindings[0].SenderID = "" }, Problem{"bindings[0].sender_id", "sender_id is required"}},
		{"binding sender", func(f *File) { f.Bindings[0].SenderID = "x" }, Problem{"bindings[0].sender_id", `sender_id "x" not found in senders`}},
		{"binding session", func(f *File) { f.Bindings[0].SessionID = "x" }, Problem{"bindings[0].session_id", `session_id "x" not found in sessions`}},
		{"binding session differs", func(f *File) {
			f.Sessions = append(f.Sessions, Component{ID: "s2", Type: "mqtt"})
			f.Bindings = append(f.Bindings, Binding{ID: "b3", SenderID: "out2", SessionID: "s2"})
		}, Problem{"bindings[2].session_id", `session_id "s2" differs from the session "sess" of sender "out2"`}},
		{"route id", func(f *File) { r0(f).ID = "" }, Problem{"routes[0].id", "id is required"}},
		{"route receiver required", func(f *File) { r0(f).ReceiverID = "" }, Problem{"routes[0].receiver_id", "receiver_id is required"}},
		{"route receiver", func(f *File) { r0(f).ReceiverID = "x" }, Problem{"routes[0].receiver_id", `receiver_id "x" not found in receivers`}},
		{"delivery mode", func(f *File) { r0(f).DeliveryMode = "later" }, Problem{"routes[0].delivery_mode", `"later" is invalid; must be one of: direct_hold, shared_outbox`}},
		{"dispatch mode", func(f *File) { r0(f).DispatchMode = "some" }, Problem{"routes[0].dispatch_mode", `"some" is invalid; must be one of: single, fan_out`}},
		{"shared_outbox store", func(f *File) {
			r0(f).DeliveryMode, r0(f).Policy.AckAfter, f.Stores.Outbox = DeliverySharedOutbox, AckOutboxPersist, nil
		}, Problem{"routes[0].delivery_mode", "shared_outbox requires stores.outbox"}},
		{"no bindings", func(f *File) { r0(f).Bindings = nil }, Problem{"routes[0].bindings", "at least one binding is required"}},
		{"unknown binding", func(f *File) { r0(f).Bindings[1] = "zz" }, Problem{"routes[0].bindings[1]", `binding "zz" not found in bindings`}},
		{"binding twice", func(f *File) { r0(f).Bindings[1] = "b1" }, Problem{"routes[0].bindings[1]", `duplicate binding "b1"`}},
		{"unknown processor", func(f *File) { r0(f).Processors = []string{"p1", "nope"} }, Problem{"routes[0].processors[1]", `processor "nope" not found in processors`}},
		{"processor twice", func(f *File) { r0(f).Processors = []string{"p1", "p1"} }, Problem{"routes[0].processors[1]", `duplicate processor "p1"`}},
		{"processor type", func(f *File) { f.Processors["p1"] = Processor{} }, Problem{"processors.p1.type", "type is required"}},
		{"max_in_flight", func(f *File) { r0(f).Policy.MaxInFlight = -1 }, Problem{"routes[0].policy.max_in_flight", "must be within [1,1000000], got -1"}},
		{"max_replay_attempts", func(f *File) { r0(f).Policy.MaxReplayAttempts = -1 }, Problem{"routes[0].policy.max_replay_attempts", "must not be negative, got -1"}},
		{"max_outbox_depth", func(f *File) { r0(f).Policy.MaxOutboxDepth = -5 }, Problem{"routes[0].policy.max_outbox_depth", "must not be negative, got -5"}},
		{"replay_budget", func(f *File) { r0(f).Policy.ReplayBudget = -time.Minute }, Problem{"routes[0].policy.replay_budget", "must not be negative, got -1m0s"}},
		{"send_timeout", func(f *File) { r0(f).Policy.SendTimeout = -time.Second }, Problem{"routes[0].policy.send_timeout", "must not be negative, got -1s"}},
		{"depth_cache_ttl", func(f *File) { r0(f).Policy.DepthCacheTTL = -time.Second }, Problem{"routes[0].policy.depth_cache_ttl", "must not be negative, got -1s"}},
		{"ack_after value", func(f *File) { r0(f).Policy.AckAfter = "never" }, Problem{"routes[0].policy.ack_after", `"never" is invalid; must be one of: target_accept, outbox_persist`}},
		{"ack_after direct_hold", func(f *File) { r0(f).Policy.AckAfter = AckOutboxPersist }, Problem{"routes[0].policy.ack_after", `ack_after "outbox_persist" requires delivery_mode shared_outbox; direct_hold acknowledges on target_accept`}},
		{"ack_after shared_outbox", func(f *File) { r0(f).DeliveryMode = DeliverySharedOutbox }, Problem{"routes[0].policy.ack_after", `ack_after "target_accept" does not fit delivery_mode shared_outbox, which acknowledges on outbox_persist`}},
		{"on_expired value", func(f *File) { r0(f).Policy.OnExpired = "keep" }, Problem{"routes[0].policy.on_expired", `"keep" is invalid; must be one of: drop, dlq`}},
		{"on_permanent_failure value", func(f *File) { r0(f).Policy.OnPermanentFailure = "x" }, Problem{"routes[0].policy.on_permanent_failure", `"x" is invalid; must be one of: drop, dlq`}},
		{"on_filtered value", func(f *File) { r0(f).Policy.OnFiltered = "x" }, Problem{"routes[0].policy.on_filtered", `"x" is invalid; must be one of: drop, dlq`}},
		{"dlq without store", func(f *File) {
			f.Stores.DLQ = nil
			r0(f).Policy.OnExpired = ActionDrop
			r0(f).Policy.OnFiltered = ActionDrop
		}, Problem{"routes[0].policy.on_permanent_failure", "dlq requires stores.dlq (configure a DLQ store or set on_permanent_failure: drop)"}},
		{"backoff initial", func(f *File) { r0(f).Policy.Backoff.InitialInterval = -1 }, Problem{"routes[0].policy.backoff.initial_interval", "must not be negative, got -1ns"}},
		{"backoff max", func(f *File) { r0(f).Policy.Backoff.MaxInterval = -time.Second }, Problem{"routes[0].policy.backoff.max_interval", "must not be negative, got -1s"}},
		{"backoff multiplier", func(f *File) { r0(f).Policy.Backoff.Multiplier = 0.5 }, Problem{"routes[0].policy.backoff.multiplier", "must be >= 1, got 0.5"}},
		{"backoff jitter", func(f *File) { r0(f).Policy.Backoff.Jitter = ptr(1.5) }, Problem{"routes[0].policy.backoff.jitter", "must be within [0,1], got 1.5"}},
		{"backoff jitter negative", func(f *File) { r0(f).Policy.Backoff.Jitter = ptr(-0.1) }, Problem{"routes[0].policy.backoff.jitter", "must be within [0,1], got -0.1"}},
		{"resolver type required", func(f *File) { r0(f).Resolver = &Resolver{} }, Problem{"routes[0].resolver.type", "type is required"}},
		{"resolver type", func(f *File) { r0(f).Resolver = &Resolver{Type: "x"} }, Problem{"routes[0].resolver.type", `resolver.type "x" is invalid; must be one of: rules, header_map, all, static`}},
		{"resolver default", func(f *File) { r0(f).Resolver = &Resolver{Type: ResolverStatic, DefaultBinding: "x"} }, Problem{"routes[0].resolver.default_binding", `resolver.default_binding "x" not found in route bindings`}},
		{"header_map key", func(f *File) {
			r0(f).Resolver = &Resolver{Type: ResolverHeaderMap, HeaderMap: map[string]string{"a": "b1"}}
		}, Problem{"routes[0].resolver.header_key", "resolver.header_key is required for header_map type"}},
		{"header_map empty", func(f *File) { r0(f).Resolver = &Resolver{Type: ResolverHeaderMap, HeaderKey: "k"} }, Problem{"routes[0].resolver.header_map", "resolver.header_map must have at least one entry"}},
		{"header_map binding", func(f *File) {
			r0(f).Resolver = &Resolver{Type: ResolverHeaderMap, HeaderKey: "k", HeaderMap: map[string]string{"acme": "y"}}
		}, Problem{"routes[0].resolver.header_map.acme", `resolver.header_map["acme"] references unknown binding "y"`}},
		{"rules empty", func(f *File) { r0(f).Resolver = rules() }, Problem{"routes[0].resolver.rules", `resolver type "rules" requires at least one rule or a default_binding`}},
		{"rule binding required", func(f *File) { r0(f).Resolver = rules(Rule{}) }, Problem{"routes[0].resolver.rules[0].binding_id", "binding_id is required"}},
		{"rule binding", func(f *File) { r0(f).Resolver = rules(Rule{BindingID: "x"}) }, Problem{"routes[0].resolver.rules[0].binding_id", `binding_id "x" not found in route bindings`}},
		{"condition field", func(f *File) { r0(f).Resolver = rules(cond("", "eq", 1)) }, Problem{"routes[0].resolver.rules[0].match[0]", "field is required"}},
		{"condition operator", func(f *File) { r0(f).Resolver = rules(cond("subject", "like", "a")) }, Problem{"routes[0].resolver.rules[0].match[0]", `operator "like" is invalid`}},
		{"condition regex", func(f *File) { r0(f).Resolver = rules(cond("subject", "regex", "(")) }, Problem{"routes[0].resolver.rules[0].match[0]", "invalid regex pattern: error parsing regexp: missing closing ): `(`"}},
		{"condition regex length", func(f *File) { r0(f).Resolver = rules(cond("subject", "regex", string(make([]byte, 4097)))) }, Problem{"routes[0].resolver.rules[0].match[0]", "regex pattern exceeds maximum length of 4096 characters"}},
		{"condition value type", func(f *File) { r0(f).Resolver = rules(cond("$.n", "gt", "x")) }, Problem{"routes[0].resolver.rules[0].match[0]", `operator "gt" requires a numeric value, got string`}},
		{"session lease store", func(f *File) { f.Stores.Lease = nil; withSession(f, func(*RouteSession) {}) }, Problem{"routes[0].session", "exclusive session requires stores.lease"}},
		{"session id", func(f *File) { withSession(f, func(s *RouteSession) { s.SessionID = "x" }) }, Problem{"routes[0].session.session_id", `session_id "x" not found in sessions`}},
		{"session sender", func(f *File) { withSession(f, func(s *RouteSession) { s.SenderID = "x" }) }, Problem{"routes[0].session.sender_id", `sender_id "x" not found in senders`}},
		{"session sender required", func(f *File) { withSession(f, func(s *RouteSession) { s.SenderID = "" }) }, Problem{"routes[0].session.sender_id", "sender_id is required"}},
		{"session sender elsewhere", func(f *File) {
			f.Sessions = append(f.Sessions, Component{ID: "s2", Type: "mqtt"})
			withSession(f, func(s *RouteSession) { s.SessionID = "s2" })
		}, Problem{"routes[0].session.sender_id", `sender "out2" runs on session "sess", not on session "s2"`}},
		{"drain exclusive", func(f *File) {
			withSession(f, func(s *RouteSession) {
				s.DrainInterval = time.Second
				s.DrainStrategy = &DrainStrategy{Type: DrainAdaptiveBackoff}
			})
		}, Problem{"routes[0].session.drain_interval", "drain_strategy and drain_interval are mutually exclusive"}},
		{"drain type required", func(f *File) { withSession(f, func(s *RouteSession) { s.DrainStrategy = &DrainStrategy{} }) }, Problem{"routes[0].session.drain_strategy.type", "type is required"}},
		{"drain type", func(f *File) { withSession(f, func(s *RouteSession) { s.DrainStrategy = &DrainStrategy{Type: "x"} }) }, Problem{"routes[0].session.drain_strategy.type", `"x" is invalid; must be one of: fixed_poll, adaptive_backoff`}},
		{"fixed poll interval", func(f *File) {
			withSession(f, func(s *RouteSession) { s.DrainStrategy = &DrainStrategy{Type: DrainFixedPoll} })
		}, Problem{"routes[0].session.drain_strategy.interval", "must be positive for fixed_poll, got 0s"}},
		{"drain min > max", func(f *File) {
			withSession(f, func(s *RouteSession) {
				s.DrainStrategy = &DrainStrategy{Type: DrainAdaptiveBackoff, MinInterval: 2 * time.Second, MaxInterval: time.Second}
			})
		}, Problem{"routes[0].session.drain_strategy.min_interval", "must not exceed max_interval (2s > 1s)"}},
		{"drain multiplier", func(f *File) {
			withSession(f, func(s *RouteSession) { s.DrainStrategy = &DrainStrategy{Type: DrainAdaptiveBackoff, Multiplier: 1} })
		}, Problem{"routes[0].session.drain_strategy.multiplier", "must be > 1, got 1"}},
		{"drain negative", func(f *File) { withSession(f, func(s *RouteSession) { s.DrainInterval = -time.Second }) }, Problem{"routes[0].session.drain_interval", "must not be negative, got -1s"}},
		{"drain batch", func(f *File) {
			withSession(f, func(s *RouteSession) { s.DrainBatchSize, s.DrainMaxBatchSize = 50, 10 })
		}, Problem{"routes[0].session.drain_max_batch_size", "must be at least drain_batch_size (10 < 50)"}},
		{"lease ttl floor", func(f *File) { withSession(f, func(s *RouteSession) { s.LeaseTTL = 4 * time.Second }) }, Problem{"routes[0].session.lease_ttl", "must be at least 5s, got 4s"}},
		{"lease negative", func(f *File) { withSession(f, func(s *RouteSession) { s.StepDownGrace = -time.Second }) }, Problem{"routes[0].session.step_down_grace", "must not be negative, got -1s"}},
		{"renew fails", func(f *File) { withSession(f, func(s *RouteSession) { s.MaxRenewFails = -1 }) }, Problem{"routes[0].session.max_renew_fails", "must be at least 1, got -1"}},
		{"split brain", func(f *File) {
			withSession(f, func(s *RouteSession) { s.LeaseTTL, s.RenewInterval = 30*time.Second, 10*time.Second })
		}, Problem{"routes[0].session.renew_interval", "(renew_interval + lease_renew_jitter/2 + renew_call_timeout) × max_renew_fails must be below lease_ttl: (10s + 416ms/2 + 5s) × 3 = 45.624s >= 30s"}},
		{"renew floor", func(f *File) {
			withSession(f, func(s *RouteSession) { s.RenewInterval, s.AcquirePollInterval = 100*time.Millisecond, time.Second })
		}, Problem{"routes[0].session.renew_interval", "must be at least 250ms, got 100ms"}},
		{"acquire floor", func(f *File) {
			withSession(f, func(s *RouteSession) { s.AcquirePollInterval = 200 * time.Millisecond })
		}, Problem{"routes[0].session.acquire_poll_interval", "must be at least 250ms, got 200ms"}},
		{"derived cadence collapses", func(f *File) {
			withSession(f, func(s *RouteSession) { s.LeaseTTL, s.MaxRenewFails = 5*time.Second, 5 })
		}, Problem{"routes[0].session.max_renew_fails", "lease_ttl 5s over max_renew_fails 5 leaves 1s per renewal, too little for a 1s renew_call_timeout and a renew interval of at least 250ms; lower max_renew_fails, raise lease_ttl or pin renew_interval"}},
		{"failover slo positive", func(f *File) {
			withSession(f, func(s *RouteSession) {
				s.FailoverSLO = ptr(time.Duration(0))
				s.BrokerHealthStepDown = &OffDuration{Off: true}
			})
		}, Problem{"routes[0].session.failover_slo", "must be positive, got 0s"}},
		{"failover needs broker step down", func(f *File) { withSession(f, func(s *RouteSession) { s.FailoverSLO = ptr(time.Hour) }) },
			Problem{"routes[0].session.broker_health_step_down", "broker_health_step_down is required when failover_slo is declared (a duration, or off)"}},
		{"failover budget", func(f *File) {
			withSession(f, func(s *RouteSession) {
				s.FailoverSLO = ptr(time.Minute)
				s.BrokerHealthStepDown = &OffDuration{Off: true}
			})
		}, Problem{"routes[0].session.failover_slo", "owner death can take lease_ttl (6m0s) + acquire_poll_interval (5s) + startup_allowance (0s) = 6m5s, more than failover_slo 1m0s: lower lease_ttl or acquire_poll_interval, or raise failover_slo"}},
		{"broker budget", func(f *File) {
			withSession(f, func(s *RouteSession) {
				s.LeaseTTL, s.FailoverSLO, s.BrokerHealthStepDown = 30*time.Second, ptr(time.Minute), &OffDuration{Duration: time.Minute}
			})
		}, Problem{"routes[0].session.failover_slo", "a broker outage can take broker_health_step_down (1m0s) + step_down_grace (15s) + acquire_poll_interval (4.791s) + startup_allowance (0s) = 1m19.791s, more than failover_slo 1m0s: lower broker_health_step_down, step_down_grace or acquire_poll_interval, or raise failover_slo"}},
		{"broker step down", func(f *File) { withSession(f, func(s *RouteSession) { s.BrokerHealthStepDown = &OffDuration{} }) }, Problem{"routes[0].session.broker_health_step_down", "must be positive or off, got 0s"}},
		{"startup allowance", func(f *File) { withSession(f, func(s *RouteSession) { s.StartupAllowance = time.Hour }) }, Problem{"routes[0].session.startup_allowance", "must be at most 10m0s, got 1h0m0s"}},
		{"store type", func(f *File) { f.Stores.Outbox.Type = "" }, Problem{"stores.outbox.type", "type is required"}},
		{"api key required", func(f *File) { f.HTTP.AdminAPIKey = "" }, Problem{"http.admin_api_key", "admin_api_key is required"}},
		{"api key short", func(f *File) { f.HTTP.AdminAPIKey = "short" }, Problem{"http.admin_api_key", "must be at least 16 characters, got 5"}},
		{"monitor key short", func(f *File) { f.HTTP.MonitorAPIKey = "short" }, Problem{"http.monitor_api_key", "must be at least 16 characters, got 5"}},
		{"tls key missing", func(f *File) { f.HTTP.TLSCertFile = "c.pem" }, Problem{"http.tls_key_file", "tls_key_file is required when the other half of the TLS pair is set (both or none)"}},
		{"tls cert missing", func(f *File) { f.HTTP.TLSKeyFile = "k.pem" }, Problem{"http.tls_cert_file", "tls_cert_file is required when the other half of the TLS pair is set (both or none)"}},
		{"cors wildcard", func(f *File) { f.HTTP.CORSOrigins = []string{"https://a", "*"} }, Problem{"http.cors_origins[1]", `wildcard origin "*" is rejected; list each allowed origin`}},
		{"listen address", func(f *File) { f.HTTP.AdminAddr = "8080" }, Problem{"http.admin_addr", `invalid listen address "8080": want host:port`}},
		{"same address", func(f *File) { f.HTTP.MonitorAddr = f.HTTP.AdminAddr }, Problem{"http.monitor_addr", "must differ from admin_addr (127.0.0.1:8080)"}},
		{"log level", func(f *File) { f.Telemetry.LogLevel = "loud" }, Problem{"telemetry.log_level", `"loud" is invalid; must be one of: debug, info, warn, error`}},
		{"log format", func(f *File) { f.Telemetry.LogFormat = "xml" }, Problem{"telemetry.log_format", `"xml" is invalid; must be one of: text, json`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := base(t)
			tt.mut(f)
			_, err := f.ValidateWith(preview)
			var got Problems
			if !errors.As(err, &got) {
				t.Fatalf("Validate() = %v, want Problems", err)
			}
			if diff := cmp.Diff(Problems{tt.want}, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}
