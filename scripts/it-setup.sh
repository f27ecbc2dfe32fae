#!/usr/bin/env bash
# Brings this machine to the state the integration suites need: installs
# and starts what the base system lacks (browsers, emulators, broker
# plugins) through the scripts/ensure-*.sh helpers. Idempotent.
#
# With GOBRIDGE_REQUIRE_IT set (CI sets it to 1) a helper that fails fails the run;
# otherwise a failure is reported and the suites that need it will skip.
set -uo pipefail
cd "$(dirname "$0")"
status=0

# required mirrors core/itest.Required: GOBRIDGE_REQUIRE_IT set to anything
# but "", "0" or "false" (any case) makes every integration suite mandatory.
required() {
	local v
	v=$(printf '%s' "${GOBRIDGE_REQUIRE_IT:-}" | tr -d '[:space:]' | tr '[:upper:]' '[:lower:]')
	[ -n "$v" ] && [ "$v" != "0" ] && [ "$v" != "false" ]
}
for s in ensure-*.sh; do
	[ -e "$s" ] || continue
	echo "== it-setup: $s"
	if ! bash "$s"; then
		if required; then
			echo "it-setup: $s failed and GOBRIDGE_REQUIRE_IT is set" >&2
			status=1
		else
			echo "it-setup: $s failed; suites that need it will skip" >&2
		fi
	fi
done
exit $status
