#!/usr/bin/env bash
# Installs and builds the Qpid Proton example broker that the
# transports/amqp10 suites start on a free port of their own (through
# scripts/proton-broker.sh). Idempotent; starts nothing.
set -euo pipefail
exec bash "$(dirname "$0")/proton-broker.sh" install
