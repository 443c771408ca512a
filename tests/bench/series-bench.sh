#!/usr/bin/env bash
# Benchmark by hand (not part of ctest): the dashboard's read path, the previous
# build against the new one in one run, on the same database and machine.
# For GET /api/v1/devices, a 1-year series (points=2000, to=now, as the dashboard
# asks) and a 91-day series: p50/p99 for one client (wrk -t1 -c1), then req/s,
# p99 and the daemon's peak RSS at 64 connections (wrk -t2 -c64).
#
# Usage: tests/bench/series-bench.sh BUILD_DIR_OLD BUILD_DIR_NEW [YEAR_DB]
#   (without YEAR_DB: BUILD_DIR_NEW/tests/nvmond-histgen DB 365 4 10)
#   DURATION=seconds per wrk run (default 15)
set -euo pipefail
old=${1:?usage: $0 BUILD_DIR_OLD BUILD_DIR_NEW [YEAR_DB]}
new=${2:?usage: $0 BUILD_DIR_OLD BUILD_DIR_NEW [YEAR_DB]}
dur=${DURATION:-15}
src=$(cd "$(dirname "$0")/../.." && pwd)
command -v wrk > /dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 1; }
tmp=$(mktemp -d /tmp/nvmond-sbench.XXXXXX)
pid= peak=
trap '[ -n "$pid" ] && kill "$pid" 2> /dev/null; [ -n "$peak" ] && kill "$peak" 2> /dev/null; rm -rf "$tmp"' EXIT

if [ -n "${3:-}" ]; then
	cp "$3" "$tmp/year.db"
else
	"$new/tests/nvmond-histgen" "$tmp/year.db" 365 4 10 > /dev/null
fi
echo "database: $(du -h "$tmp/year.db" | cut -f1), 4 drives, 1 year at 10 s"

now=$(($(date +%s) * 1000))
declare -A paths=(
	[devices]="/api/v1/devices"
	[year]="/api/v1/devices/1/series?from=$((now - 365 * 86400000))&to=$now&points=2000"
	[91d]="/api/v1/devices/1/series?from=$((now - 91 * 86400000))&to=$now&points=2000"
)
printf '| endpoint | build | 1 client p50 | 1 client p99 | 64 conn req/s | 64 conn p99 | peak RSS |\n' > "$tmp/table"
printf '|---|---|---|---|---|---|---|\n' >> "$tmp/table"

field() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }
for which in old new; do
	build=$old
	[ $which = new ] && build=$new
	cp "$tmp/year.db" "$tmp/run.db"
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	printf '[daemon]\ndatabase = %s\ndemo = yes\nweb_root = %s/web\n' "$tmp/run.db" "$src" > "$tmp/nvmond.conf"
	"$build/nvmond" -c "$tmp/nvmond.conf" --listen "127.0.0.1:$port" > "$tmp/daemon-$which.log" 2>&1 &
	pid=$!
	for _ in $(seq 100); do curl -fsS "http://127.0.0.1:$port/healthz" > /dev/null 2>&1 && break; sleep 0.1; done
	sleep 2
	echo "$which ($build): RSS idle $(awk '/^VmRSS/ { print $2 / 1024 " MiB" }' "/proc/$pid/status")"
	for ep in devices year 91d; do
		url="http://127.0.0.1:$port${paths[$ep]}"
		curl -fsS "$url" > "$tmp/$which-$ep.json"
		wrk -t1 -c1 -d"${dur}s" --timeout 10s --latency "$url" > "$tmp/one.txt"
		# Peak RSS while 64 connections load it.
		(m=0; while kill -0 "$pid" 2> /dev/null; do
			r=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status" 2> /dev/null || echo 0)
			[ "${r:-0}" -gt "$m" ] && m=$r && echo "$m" > "$tmp/peak"
			sleep 0.2
		done) &
		peak=$!
		wrk -t2 -c64 -d"${dur}s" --timeout 10s --latency "$url" > "$tmp/many.txt"
		kill "$peak" 2> /dev/null; wait "$peak" 2> /dev/null || true
		peak=
		errs=$(grep -E "Non-2xx|Socket errors" "$tmp/many.txt" "$tmp/one.txt" | tr '\n' ' ' || true)
		printf '| %s | %s | %s | %s | %s | %s | %s MiB |%s\n' "$ep" "$which" \
			"$(field 50% "$tmp/one.txt")" "$(field 99% "$tmp/one.txt")" \
			"$(awk '/^Requests\/sec/ { print $2 }' "$tmp/many.txt")" \
			"$(field 99% "$tmp/many.txt")" "$(awk '{ printf "%.1f", $1 / 1024 }' "$tmp/peak")" \
			"${errs:+ $errs}" >> "$tmp/table"
	done
	kill "$pid"; wait "$pid" 2> /dev/null || true
	pid=
done
for ep in devices year 91d; do
	if cmp -s "$tmp/old-$ep.json" "$tmp/new-$ep.json"; then
		echo "$ep: old and new answers are the same bytes"
	else
		echo "$ep: old and new answers differ (the fleet moved between runs for devices)"
	fi
done
cat "$tmp/table"
