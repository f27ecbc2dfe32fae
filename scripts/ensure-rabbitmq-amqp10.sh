#!/usr/bin/env bash
# Makes sure the shared RabbitMQ on 127.0.0.1:5672 also speaks AMQP 1.0 (on
# the same port), which the transports/amqp10 suites need: it enables the
# rabbitmq_amqp1_0 plugin online. The node is never restarted; enabling an
# already enabled plugin changes nothing, so this is idempotent.
set -euo pipefail
command -v rabbitmq-plugins >/dev/null 2>&1 ||
	{ echo "ensure-rabbitmq-amqp10: rabbitmq-plugins not found (is rabbitmq-server installed?)" >&2; exit 1; }
if rabbitmq-plugins list -e -m 2>/dev/null | grep -qx rabbitmq_amqp1_0; then
	echo "ensure-rabbitmq-amqp10: rabbitmq_amqp1_0 already enabled"
	exit 0
fi
rabbitmq-plugins enable --online rabbitmq_amqp1_0 >/dev/null ||
	{ echo "ensure-rabbitmq-amqp10: enabling rabbitmq_amqp1_0 failed (needs the node running and its Erlang cookie)" >&2; exit 1; }
echo "ensure-rabbitmq-amqp10: rabbitmq_amqp1_0 enabled"
