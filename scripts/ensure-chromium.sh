#!/bin/sh
# ensure-chromium.sh makes sure Debian's chromium package is installed, so
# that the headless-browser tests (for example the SSE EventSource test of
# transports/httpsse) run instead of skipping.
#
# It does nothing when /usr/bin/chromium already exists. Otherwise it runs
# `apt-get update && apt-get install -y chromium`, which needs root (or
# sudo without a password). It exits non-zero with a message on stderr when
# chromium cannot be installed.
#
# Usage: scripts/ensure-chromium.sh
set -eu

CHROMIUM=/usr/bin/chromium

fail() {
	echo "ensure-chromium: $*" >&2
	exit 1
}

if [ -x "$CHROMIUM" ]; then
	echo "ensure-chromium: $CHROMIUM is already installed ($("$CHROMIUM" --version 2>/dev/null || echo 'version unknown'))"
	exit 0
fi

command -v apt-get >/dev/null 2>&1 ||
	fail "apt-get not found: install chromium with your system's package manager so that $CHROMIUM exists"

if [ "$(id -u)" -eq 0 ]; then
	SUDO=
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	SUDO="sudo -n"
else
	fail "installing chromium needs root: run 'apt-get update && apt-get install -y chromium' as root, or rerun this script with sudo"
fi

echo "ensure-chromium: installing Debian's chromium package"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update || fail "apt-get update failed (no network or no package mirror?)"
$SUDO apt-get install -y --no-install-recommends chromium ||
	fail "apt-get install chromium failed; see the apt output above"

[ -x "$CHROMIUM" ] || fail "the chromium package installed but $CHROMIUM is missing"
echo "ensure-chromium: installed $("$CHROMIUM" --version 2>/dev/null || echo chromium)"
