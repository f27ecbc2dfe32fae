#!/usr/bin/env bash
# Makes sure the MQTT suites have what they need: the mosquitto binary (the
# broker-restart test starts its own process) and a broker on
# 127.0.0.1:1883 speaking MQTT v5 (the conformance suites). Idempotent.
set -euo pipefail
if ! command -v mosquitto >/dev/null 2>&1 && [ ! -x /usr/sbin/mosquitto ]; then
	apt-get update -qq && apt-get install -y -qq mosquitto mosquitto-clients >/dev/null
fi
if ! (exec 3<>/dev/tcp/127.0.0.1/1883) 2>/dev/null; then
	conf=$(mktemp -d)/mosquitto.conf
	printf 'listener 1883 127.0.0.1\nallow_anonymous true\n' >"$conf"
	if [ "$(id -u)" = 0 ]; then echo "user root" >>"$conf"; fi
	mosquitto -c "$conf" -d
	for _ in $(seq 50); do
		(exec 3<>/dev/tcp/127.0.0.1/1883) 2>/dev/null && break
		sleep 0.1
	done
fi
(exec 3<>/dev/tcp/127.0.0.1/1883) 2>/dev/null || { echo "ensure-mqtt: no broker on 127.0.0.1:1883" >&2; exit 1; }
echo "ensure-mqtt: mosquitto $(mosquitto -h 2>/dev/null | head -1 | awk '{print $3}') ready on 127.0.0.1:1883"
