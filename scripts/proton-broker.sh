#!/usr/bin/env bash
# Builds and runs the Apache Qpid Proton example broker (Debian's
# libqpid-proton11-dev-examples ships broker.c) as a second, independent
# AMQP 1.0 peer for the transports/amqp10 suites.
#
#   scripts/proton-broker.sh install           install the packages, build the broker
#   scripts/proton-broker.sh start [PORT]      start it on 127.0.0.1:PORT (default: a free port)
#   scripts/proton-broker.sh stop|kill|status  manage the running broker
#
# start prints "127.0.0.1:PORT" on stdout once the broker accepts
# connections. Installing needs root (apt-get); everything else runs as the
# caller. State (binary, pid, log) lives in GOBRIDGE_PROTON_DIR (default
# ${TMPDIR:-/tmp}/gobridge-proton).
#
# Limits of this peer: the example broker sends to consumers pre-settled
# and drops released or modified messages, so it can check senders and
# first deliveries, not redelivery.
set -euo pipefail

dir=${GOBRIDGE_PROTON_DIR:-${TMPDIR:-/tmp}/gobridge-proton}
src=/usr/share/proton/examples/c
bin=$dir/broker

fail() {
	echo "proton-broker: $*" >&2
	exit 1
}

install() {
	if [ ! -f "$src/broker.c" ] || ! ldconfig -p | grep -q 'libqpid-proton\.so '; then
		[ "$(id -u)" -eq 0 ] || fail "installing libqpid-proton11-dev(-examples) needs root"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq || fail "apt-get update failed"
		apt-get install -y -qq --no-install-recommends gcc libc6-dev libqpid-proton11-dev libqpid-proton11-dev-examples >/dev/null ||
			fail "apt-get install of the Qpid Proton packages failed"
	fi
	mkdir -p "$dir"
	if [ ! -x "$bin" ] || [ "$src/broker.c" -nt "$bin" ]; then
		gcc -O1 -o "$bin" -I"$src" "$src/broker.c" -lqpid-proton -lpthread || fail "building $src/broker.c failed"
	fi
	echo "proton-broker: $bin ready" >&2
}

freeport() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

running() { [ -f "$dir/pid" ] && kill -0 "$(cat "$dir/pid")" 2>/dev/null; }

start() {
	[ -x "$bin" ] || install
	if running; then
		cat "$dir/addr"
		return
	fi
	port=${1:-$(freeport)}
	"$bin" 127.0.0.1 "$port" >"$dir/log" 2>&1 &
	echo $! >"$dir/pid"
	for _ in $(seq 100); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			echo "127.0.0.1:$port" | tee "$dir/addr"
			return
		fi
		running || fail "the broker exited: $(tail -3 "$dir/log")"
		sleep 0.05
	done
	fail "the broker did not listen on port $port"
}

stop() {
	running || return 0
	kill "-${1:-TERM}" "$(cat "$dir/pid")"
	rm -f "$dir/pid" "$dir/addr"
}

case "${1:-}" in
install) install ;;
start) start "${2:-}" ;;
stop) stop TERM ;;
kill) stop KILL ;;
status) if running; then cat "$dir/addr"; else echo "proton-broker: not running" >&2; exit 1; fi ;;
*) echo "usage: $0 install|start [PORT]|stop|kill|status" >&2; exit 2 ;;
esac
