#!/usr/bin/env bash
# Starts, stops or restarts a second RabbitMQ node for fault tests: the
# installed rabbitmq-server run under its own node name, AMQP and
# distribution ports, config, cookie and data/log directories, so it never
# touches the shared node on 5672 that the other suites and CI use.
#
#   scripts/rabbitmq-second-node.sh start|stop|restart|kill|status
#
# stop shuts the node down gracefully; kill ends it with SIGKILL, as a
# crash would (start it again with start).
#
# Environment (all optional):
#   GOBRIDGE_RMQ2_DIR    state directory (default ${TMPDIR:-/tmp}/gobridge-rmq2)
#   GOBRIDGE_RMQ2_PORT   AMQP port (default 5673)
#   GOBRIDGE_RMQ2_DIST   Erlang distribution port (default 25673)
#   GOBRIDGE_RMQ2_NAME   node name (default gobridge-it2@localhost)
set -euo pipefail

dir=${GOBRIDGE_RMQ2_DIR:-${TMPDIR:-/tmp}/gobridge-rmq2}
port=${GOBRIDGE_RMQ2_PORT:-5673}
dist=${GOBRIDGE_RMQ2_DIST:-25673}
node=${GOBRIDGE_RMQ2_NAME:-gobridge-it2@localhost}
bin=/usr/lib/rabbitmq/bin

if [ "$port" = 5672 ] || [ "$node" = rabbit@localhost ]; then
	echo "refusing to manage the shared node ($node, port $port)" >&2
	exit 2
fi
if [ ! -x "$bin/rabbitmq-server" ]; then
	echo "rabbitmq-server is not installed ($bin)" >&2
	exit 3
fi

# Everything the node reads or writes lives under $dir; an empty env file
# keeps /etc/rabbitmq/rabbitmq-env.conf (the shared node's name) out.
setup_env() {
	mkdir -p "$dir/mnesia" "$dir/log" "$dir/plugins-expand" "$dir/home"
	: >"$dir/rabbitmq-env.conf"
	echo '[].' >"$dir/enabled_plugins"
	cat >"$dir/rabbitmq.conf" <<CONF
listeners.tcp.local = 127.0.0.1:$port
CONF
	export HOME="$dir/home"
	export RABBITMQ_NODENAME="$node"
	export RABBITMQ_NODE_PORT="$port"
	export RABBITMQ_DIST_PORT="$dist"
	export RABBITMQ_CONF_ENV_FILE="$dir/rabbitmq-env.conf"
	export RABBITMQ_CONFIG_FILE="$dir/rabbitmq.conf"
	export RABBITMQ_ENABLED_PLUGINS_FILE="$dir/enabled_plugins"
	export RABBITMQ_PLUGINS_EXPAND_DIR="$dir/plugins-expand"
	export RABBITMQ_MNESIA_BASE="$dir/mnesia"
	export RABBITMQ_LOG_BASE="$dir/log"
	export RABBITMQ_PID_FILE="$dir/node.pid"
	export ERL_EPMD_ADDRESS=127.0.0.1
	export RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}"
}

running() {
	[ -s "$dir/node.pid" ] && kill -0 "$(cat "$dir/node.pid")" 2>/dev/null
}

port_open() {
	(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null
}

start() {
	if running && port_open; then
		echo "second node $node already up on $port"
		return 0
	fi
	if port_open; then
		echo "port $port is taken by something else" >&2
		return 4
	fi
	"$bin/rabbitmq-server" >"$dir/log/console.log" 2>&1 &
	echo $! >"$dir/node.pid"
	for _ in $(seq 1 600); do
		if port_open; then
			echo "second node $node up on 127.0.0.1:$port (state in $dir)"
			return 0
		fi
		if ! running; then
			echo "second node exited during start; see $dir/log" >&2
			tail -n 20 "$dir/log/console.log" >&2 || true
			return 5
		fi
		sleep 0.1
	done
	echo "second node did not open $port within 60s" >&2
	return 6
}

stop() {
	if ! running; then
		rm -f "$dir/node.pid"
		echo "second node $node not running"
		return 0
	fi
	local pid
	pid=$(cat "$dir/node.pid")
	# A graceful stop through the node's own CLI, then the process itself:
	# only ever the pid this script started.
	"$bin/rabbitmqctl" -n "$node" shutdown >/dev/null 2>&1 || kill "$pid" 2>/dev/null || true
	for _ in $(seq 1 300); do
		if ! kill -0 "$pid" 2>/dev/null; then
			rm -f "$dir/node.pid"
			echo "second node $node stopped"
			return 0
		fi
		sleep 0.1
	done
	kill -9 "$pid" 2>/dev/null || true
	rm -f "$dir/node.pid"
	echo "second node $node killed after 30s"
}

kill_node() {
	if ! running; then
		echo "second node $node not running"
		return 0
	fi
	local pid
	pid=$(cat "$dir/node.pid")
	kill -9 "$pid" 2>/dev/null || true
	for _ in $(seq 1 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	rm -f "$dir/node.pid"
	echo "second node $node killed"
}

setup_env
case "${1:-}" in
start) start ;;
stop) stop ;;
restart) stop && start ;;
kill) kill_node ;;
status) if running && port_open; then echo up; else echo down; exit 1; fi ;;
*)
	echo "usage: $0 start|stop|restart|kill|status" >&2
	exit 2
	;;
esac
