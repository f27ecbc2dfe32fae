#!/usr/bin/env bash
# Makes sure the SQS suites have an emulator: goaws, served by
# tools/sqsemu on 127.0.0.1:4100 (SQS_EMU_ADDR overrides it). Builds the
# command from the module proxy's goaws v0.4.5 and starts it in the
# background when nothing answers there yet. Idempotent.
set -euo pipefail
addr=${SQS_EMU_ADDR:-127.0.0.1:4100}
host=${addr%:*}
port=${addr##*:}
root=$(cd "$(dirname "$0")/.." && pwd)
up() { (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; }
if ! up; then
	bin=${TMPDIR:-/tmp}/gobridge-sqsemu
	(cd "$root/tools/sqsemu" && GOWORK=off go build -o "$bin" .)
	log=${TMPDIR:-/tmp}/gobridge-sqsemu.log
	nohup "$bin" -addr "$addr" >"$log" 2>&1 </dev/null &
	for _ in $(seq 100); do
		up && break
		sleep 0.1
	done
fi
up || { echo "ensure-sqs: no SQS emulator on $addr" >&2; exit 1; }
echo "ensure-sqs: goaws ready on $addr"
