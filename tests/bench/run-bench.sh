#!/usr/bin/env bash
# Benchmark by hand (not part of ctest): a year of 10-second samples for 4 drives,
# then wrk (2 threads, 64 connections, 30 s) against /api/v1/devices and against a
# 1-year samples query; prints p50/p99 latency, requests/s and the daemon's RSS
# (wrk's timeout raised to 10 s so that slow answers count in p99 instead of as errors).
#
# Usage: tests/bench/run-bench.sh BUILD_DIR [EXISTING_YEAR_DB]
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [YEAR_DB]}
src=$(cd "$(dirname "$0")/../.." && pwd)
command -v wrk > /dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 1; }
tmp=$(mktemp -d /tmp/nvmond-bench.XXXXXX)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2> /dev/null; rm -rf "$tmp"' EXIT

if [ -n "${2:-}" ]; then
	cp "$2" "$tmp/year.db"
else
	/usr/bin/time -f "generated in %e s" "$build/tests/nvmond-histgen" "$tmp/year.db" 365 4 10
fi
echo "database: $(du -h "$tmp/year.db" | cut -f1)"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# 64 connections from one address: the per-address limit raised to them (default 32).
printf '[daemon]\ndatabase = %s\ndemo = yes\nweb_root = %s/web\n[http]\nmax_connections_per_ip = 64\n' \
	"$tmp/year.db" "$src" > "$tmp/nvmond.conf"
"$build/nvmond" -c "$tmp/nvmond.conf" --listen "127.0.0.1:$port" > "$tmp/daemon.log" 2>&1 &
pid=$!
for _ in $(seq 100); do curl -fsS "http://127.0.0.1:$port/healthz" > /dev/null 2>&1 && break; sleep 0.1; done
sleep 2

rss() { awk '/^VmRSS/ { print $2 / 1024 " MiB" }' "/proc/$pid/status"; }
now=$(($(date +%s) * 1000))
year="/api/v1/devices/1/series?from=$((now - 365 * 86400000))&to=$now&points=2000"
echo "points per series (1-year query): $(curl -fsS "http://127.0.0.1:$port$year" |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["points"])')"
echo "RSS before: $(rss)"
printf '| endpoint | p50 | p99 | requests/s |\n|---|---|---|---|\n' > "$tmp/table"
for ep in "/api/v1/devices" "$year"; do
	wrk -t2 -c64 -d30s --timeout 10s --latency "http://127.0.0.1:$port$ep" > "$tmp/wrk.txt"
	p50=$(awk '$1 == "50%" { print $2 }' "$tmp/wrk.txt")
	p99=$(awk '$1 == "99%" { print $2 }' "$tmp/wrk.txt")
	rps=$(awk '/^Requests\/sec/ { print $2 }' "$tmp/wrk.txt")
	errs=$(grep -E "Non-2xx|Socket errors" "$tmp/wrk.txt" || true)
	label=$ep
	[ "$ep" = "$year" ] && label="/api/v1/devices/1/series (1 year, points=2000)"
	echo "| $label | $p50 | $p99 | $rps |${errs:+ $errs}" >> "$tmp/table"
	echo "RSS after $label: $(rss)"
done
cat "$tmp/table"
