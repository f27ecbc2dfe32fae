#!/usr/bin/env bash
# Makes sure the Service Bus emulator of transports/servicebus/sbemu can
# run: it is a Python program on Debian's python3-qpid-proton, started by
# the tests themselves on a free port. This script only installs the
# package (needs root); it starts nothing. Idempotent.
set -euo pipefail

PY=/usr/bin/python3

fail() {
	echo "ensure-sbemu: $*" >&2
	exit 1
}

if [ -x "$PY" ] && "$PY" -c 'import proton' 2>/dev/null; then
	echo "ensure-sbemu: python3-qpid-proton is already installed ($("$PY" -c 'import proton; print(".".join(map(str, proton.VERSION)))'))"
	exit 0
fi

command -v apt-get >/dev/null 2>&1 ||
	fail "apt-get not found: install Qpid Proton's Python binding for $PY with your system's package manager"
[ "$(id -u)" -eq 0 ] || fail "installing python3-qpid-proton needs root: run 'apt-get install -y python3-qpid-proton' as root"

export DEBIAN_FRONTEND=noninteractive
if ! apt-cache policy python3-qpid-proton 2>/dev/null | grep -q 'Candidate: [0-9]'; then
	apt-get -o DPkg::Lock::Timeout=300 update -qq || fail "apt-get update failed (no network or no package mirror?)"
fi
apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends python3-qpid-proton >/dev/null ||
	fail "apt-get install python3-qpid-proton failed"
"$PY" -c 'import proton' 2>/dev/null || fail "python3-qpid-proton installed but '$PY -c \"import proton\"' still fails"
echo "ensure-sbemu: installed python3-qpid-proton"
