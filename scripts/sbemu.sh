#!/usr/bin/env bash
# Runs the project's Service Bus emulator (transports/servicebus/sbemu, a
# Python program on Debian's python3-qpid-proton) as a plain AMQP 1.0 peer
# that redelivers, for suites that must not import its Go package (the
# transports/amqp10 tests). It serves peek-lock queues: a delivery disposed
# modified comes back with delivery-count + 1, released comes back with the
# count unchanged, rejected goes to QUEUE/$DeadLetterQueue, and a lock that
# expires counts as a failed delivery. Clients attach to a queue by its name
# (SASL ANONYMOUS, no $cbs token needed).
#
#   scripts/sbemu.sh check                 exit 0 when the emulator can run, 3 when not
#   scripts/sbemu.sh install               install python3-qpid-proton (scripts/ensure-sbemu.sh, root)
#   scripts/sbemu.sh run [OPTS] QUEUE...   serve in the foreground
#   scripts/sbemu.sh start [OPTS] QUEUE... serve in the background
#   scripts/sbemu.sh stop|kill|status      manage the background emulator
#
# QUEUE is NAME[:LOCK_MS[:MAX_DELIVERY_COUNT]]: NAME of letters, digits,
# '.', '_' or '-'; LOCK_MS the peek-lock duration in milliseconds (default
# 30000); MAX_DELIVERY_COUNT the failed deliveries after which the emulator
# dead-letters a message itself (default 10). OPTS: --port N (default 0: a
# free port), --max-message-size BYTES (default 262144).
#
# run replaces this shell with the emulator: it prints
# "LISTENING 127.0.0.1:PORT" on stdout once it accepts connections, logs to
# stderr, and exits on SIGTERM or when its stdin closes, so a test that
# holds stdin through a pipe never leaves it behind. start prints
# "127.0.0.1:PORT" once it listens and keeps its stdin open with a holder
# process until stop or kill. State (config, pids, log) lives in
# GOBRIDGE_SBEMU_DIR (default ${TMPDIR:-/tmp}/gobridge-sbemu).
set -euo pipefail

PY=/usr/bin/python3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
entry=$(dirname "$here")/transports/servicebus/sbemu/sbemu.py
dir=${GOBRIDGE_SBEMU_DIR:-${TMPDIR:-/tmp}/gobridge-sbemu}

# fail MESSAGE [EXIT_CODE]
fail() {
	echo "sbemu: $1" >&2
	exit "${2:-1}"
}

usage() {
	echo "usage: $0 check|install|run [--port N] [--max-message-size N] QUEUE...|start [...] QUEUE...|stop|kill|status" >&2
	exit 2
}

check() {
	[ -f "$entry" ] || fail "$entry not found" 3
	[ -x "$PY" ] || fail "$PY not found: run scripts/ensure-sbemu.sh" 3
	"$PY" -c 'import proton' 2>/dev/null || fail "$PY cannot import proton: run scripts/ensure-sbemu.sh (python3-qpid-proton)" 3
}

# config writes the emulator's JSON config for the arguments to $dir/$cfg.
config() {
	local port=0 size=262144 entities="" name lock maxdc rest
	while [ $# -gt 0 ]; do
		case "$1" in
		--port)
			[ $# -ge 2 ] || usage
			port=$2
			shift 2
			;;
		--max-message-size)
			[ $# -ge 2 ] || usage
			size=$2
			shift 2
			;;
		-*) usage ;;
		*)
			IFS=: read -r name lock maxdc rest <<<"$1"
			[[ $name =~ ^[A-Za-z0-9._-]+$ ]] || fail "queue $1: NAME must be letters, digits, '.', '_' or '-'" 2
			[ -z "${rest:-}" ] || fail "queue $1: want NAME[:LOCK_MS[:MAX_DELIVERY_COUNT]]" 2
			lock=${lock:-30000}
			maxdc=${maxdc:-10}
			[[ $lock =~ ^[1-9][0-9]*$ ]] || fail "queue $1: LOCK_MS must be a positive number of milliseconds" 2
			[[ $maxdc =~ ^[1-9][0-9]*$ ]] || fail "queue $1: MAX_DELIVERY_COUNT must be a positive number" 2
			entities+="${entities:+,}{\"name\":\"$name\",\"lock_ms\":$lock,\"max_delivery_count\":$maxdc,\"requires_session\":false}"
			shift
			;;
		esac
	done
	[[ $port =~ ^[0-9]+$ ]] && [ "$port" -le 65535 ] || fail "--port $port is not a TCP port" 2
	[[ $size =~ ^[1-9][0-9]*$ ]] || fail "--max-message-size $size must be a positive number of bytes" 2
	mkdir -p "$dir"
	printf '{"entities":[%s],"max_message_size":%s,"port":%s}\n' "$entities" "$size" "$port" >"$dir/$cfg"
}

# run serves in the foreground. -B: no __pycache__ in the source tree.
# The config is named after this shell's pid (the emulator's, after exec),
# so that runs sharing a state directory do not overwrite each other's.
run() {
	check
	cfg=config.$$.json
	config "$@"
	exec "$PY" -u -B "$entry" "$dir/$cfg"
}

running() { [ -f "$dir/pid" ] && kill -0 "$(cat "$dir/pid")" 2>/dev/null; }

start() {
	check
	if running; then
		cat "$dir/addr"
		return
	fi
	cfg=config.json
	config "$@"
	rm -f "$dir/stdin" "$dir/out"
	mkfifo "$dir/stdin"
	# The holder keeps the emulator's stdin open until stop or kill.
	sleep infinity >"$dir/stdin" &
	echo $! >"$dir/holder"
	"$PY" -u -B "$entry" "$dir/config.json" <"$dir/stdin" >"$dir/out" 2>"$dir/log" &
	echo $! >"$dir/pid"
	for _ in $(seq 200); do
		if addr=$(sed -n 's/^LISTENING //p' "$dir/out" 2>/dev/null) && [ -n "$addr" ]; then
			echo "$addr" | tee "$dir/addr"
			return
		fi
		running || {
			stop KILL
			fail "the emulator exited: $(tail -3 "$dir/log")"
		}
		sleep 0.05
	done
	stop KILL
	fail "the emulator did not listen within 10s: $(tail -3 "$dir/log")"
}

stop() {
	if running; then kill "-${1:-TERM}" "$(cat "$dir/pid")" 2>/dev/null || true; fi
	if [ -f "$dir/holder" ]; then kill "$(cat "$dir/holder")" 2>/dev/null || true; fi
	rm -f "$dir/pid" "$dir/holder" "$dir/addr" "$dir/stdin"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
check) check ;;
install) exec "$here/ensure-sbemu.sh" ;;
run) run "$@" ;;
start) start "$@" ;;
stop) stop TERM ;;
kill) stop KILL ;;
status) if running; then cat "$dir/addr"; else fail "not running"; fi ;;
*) usage ;;
esac
