#!/usr/bin/env bash
# Refresh docs/img/: start a fresh demo daemon (it fills its demo year), take the
# overview and the 950 PRO's drive page (1 year) at 1400 and 390 px, light and
# dark, and write them to docs/img/. Run by hand after a build:
#   tests/dashboard/screenshots.sh [BUILD_DIR]
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$src/build}
tmp=$(mktemp -d)
trap 'kill "$pid" 2> /dev/null || true; rm -rf "$tmp"' EXIT
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
printf '[daemon]\ndatabase = %s/nvmond.db\ndemo = yes\nweb_root = %s/web\n[probes]\nlock_dir = %s/locks\n' \
	"$tmp" "$src" "$tmp" > "$tmp/nvmond.conf"
"$build/nvmond" -c "$tmp/nvmond.conf" --listen "127.0.0.1:$port" > "$tmp/daemon.log" 2>&1 &
pid=$!
for _ in $(seq 300); do
	curl -fsS "http://127.0.0.1:$port/healthz" > /dev/null 2>&1 && break
	sleep 0.1
done
NODE_PATH=$build/dashboard-test/node_modules NVMOND_URL=http://127.0.0.1:$port OUT=$src/docs/img \
	node "$src/tests/dashboard/screenshots.js"
