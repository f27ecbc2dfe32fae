#!/usr/bin/env bash
# Brings this machine to the state the integration suites need: installs
# and starts what the base system lacks (browsers, emulators, broker
# plugins) through the scripts/ensure-*.sh helpers. Idempotent.
#
# With GOBRIDGE_REQUIRE_IT=1 (as in CI) a helper that fails fails the run;
# otherwise a failure is reported and the suites that need it will skip.
set -uo pipefail
cd "$(dirname "$0")"
status=0
for s in ensure-*.sh; do
	[ -e "$s" ] || continue
	echo "== it-setup: $s"
	if ! bash "$s"; then
		if [ "${GOBRIDGE_REQUIRE_IT:-}" = "1" ]; then
			echo "it-setup: $s failed and GOBRIDGE_REQUIRE_IT=1" >&2
			status=1
		else
			echo "it-setup: $s failed; suites that need it will skip" >&2
		fi
	fi
done
exit $status
