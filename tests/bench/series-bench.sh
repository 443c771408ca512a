#!/usr/bin/env bash
# Benchmark by hand (not part of ctest): the dashboard's read path, the previous
# build against the new one in one run, on the same database and machine.
# For GET /api/v1/devices, a 1-year series (points=2000, to=now, as the dashboard
# asks) and a 91-day series: p50/p99 for one client (wrk -t1 -c1), then req/s,
# p50, p99 and the daemon's peak RSS at 64 connections (wrk -t2 -c64).
#
# Usage: tests/bench/series-bench.sh BUILD_DIR_OLD BUILD_DIR_NEW [YEAR_DB]
#   (without YEAR_DB: BUILD_DIR_NEW/tests/nvmond-histgen DB 365 4 10)
#   DURATION=seconds per wrk run (default 15)
#   ROUNDS=N (default 1): N daemons per build, the builds taking turns to go first
#     (old, new, then new, old, …); the table gives the median of the rounds
#   ENDPOINTS="devices year 91d" (default): the ones to measure
set -euo pipefail
old=${1:?usage: $0 BUILD_DIR_OLD BUILD_DIR_NEW [YEAR_DB]}
new=${2:?usage: $0 BUILD_DIR_OLD BUILD_DIR_NEW [YEAR_DB]}
dur=${DURATION:-15}
rounds=${ROUNDS:-1}
endpoints=${ENDPOINTS:-devices year 91d}
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

field() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }
# One daemon of build $1 ("old" or "new"), every endpoint, one line per endpoint in $tmp/rows.
run_build() {
	local which=$1 round=$2 build=$old
	[ "$which" = new ] && build=$new
	cp "$tmp/year.db" "$tmp/run.db"
	rm -f "$tmp/run.db-wal" "$tmp/run.db-shm"
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	printf '[daemon]\ndatabase = %s\ndemo = yes\nweb_root = %s/web\n[http]\nmax_connections_per_ip = 64\n' "$tmp/run.db" "$src" > "$tmp/nvmond.conf"
	"$build/nvmond" -c "$tmp/nvmond.conf" --listen "127.0.0.1:$port" > "$tmp/daemon-$which.log" 2>&1 &
	pid=$!
	for _ in $(seq 100); do curl -fsS "http://127.0.0.1:$port/healthz" > /dev/null 2>&1 && break; sleep 0.1; done
	sleep 2
	echo "round $round, $which ($build): RSS idle $(awk '/^VmRSS/ { print $2 / 1024 " MiB" }' "/proc/$pid/status")"
	for ep in $endpoints; do
		url="http://127.0.0.1:$port${paths[$ep]}"
		curl -fsS "$url" > "$tmp/$which-$ep.json"
		wrk -t1 -c1 -d"${dur}s" --timeout 10s --latency "$url" > "$tmp/one.txt"
		# Peak RSS while 64 connections load it, with its anonymous part then.
		echo "0 0" > "$tmp/peak"
		(m=0; while kill -0 "$pid" 2> /dev/null; do
			read -r r a < <(awk '/^VmRSS/ { r = $2 } /^RssAnon/ { a = $2 } END { print r + 0, a + 0 }' \
				"/proc/$pid/status" 2> /dev/null || echo 0 0)
			[ "${r:-0}" -gt "$m" ] && m=$r && echo "$r $a" > "$tmp/peak"
			sleep 0.2
		done) &
		peak=$!
		wrk -t2 -c64 -d"${dur}s" --timeout 10s --latency "$url" > "$tmp/many.txt"
		kill "$peak" 2> /dev/null; wait "$peak" 2> /dev/null || true
		peak=
		errs=$(grep -E "Non-2xx|Socket errors" "$tmp/many.txt" "$tmp/one.txt" | tr '\n' ' ' || true)
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$ep" "$which" "$round" \
			"$(field 50% "$tmp/one.txt")" "$(field 99% "$tmp/one.txt")" \
			"$(awk '/^Requests\/sec/ { print $2 }' "$tmp/many.txt")" \
			"$(field 50% "$tmp/many.txt")" "$(field 99% "$tmp/many.txt")" \
			"$(awk '{ print $1 }' "$tmp/peak")" "$(awk '{ print $2 }' "$tmp/peak")" \
			"$errs" >> "$tmp/rows"
	done
	kill "$pid"; wait "$pid" 2> /dev/null || true
	pid=
}

: > "$tmp/rows"
for round in $(seq "$rounds"); do
	if [ $((round % 2)) = 1 ]; then order="old new"; else order="new old"; fi
	for which in $order; do run_build "$which" "$round"; done
done
for ep in $endpoints; do
	if cmp -s "$tmp/old-$ep.json" "$tmp/new-$ep.json"; then
		echo "$ep: old and new answers are the same bytes"
	else
		echo "$ep: old and new answers differ (the fleet moved between runs for devices)"
	fi
done
python3 - "$tmp/rows" "$rounds" << 'EOF'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
rounds = int(sys.argv[2])
def ms(s):  # wrk's "850.00us", "1.23ms", "2.01s"
    for unit, f in (("us", 1e-3), ("ms", 1.0), ("s", 1e3)):
        if s.endswith(unit) and s[:-len(unit)].replace(".", "", 1).isdigit():
            return float(s[:-len(unit)]) * f
    return float("nan")
cols = ["1 client p50", "1 client p99", "64 conn req/s", "64 conn p50", "64 conn p99",
        "peak RSS", "its anon"]
def fmt(vals):
    return [f"{vals[0]:.2f} ms", f"{vals[1]:.2f} ms", f"{vals[2]:.0f}", f"{vals[3]:.2f} ms",
            f"{vals[4]:.2f} ms", f"{vals[5] / 1024:.1f} MiB", f"{vals[6] / 1024:.1f} MiB"]
def nums(r):
    return [ms(r[3]), ms(r[4]), float(r[5] or "nan"), ms(r[6]), ms(r[7]), float(r[8]), float(r[9])]
if rounds > 1:
    print("Every round, in the order run:")
    print("| endpoint | build | round | " + " | ".join(cols) + " |")
    print("|---" * (len(cols) + 3) + "|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]} | " + " | ".join(fmt(nums(r))) + f" |{r[10]}")
    print(f"\nMedians of {rounds} rounds:")
print("| endpoint | build | " + " | ".join(cols) + " |")
print("|---" * (len(cols) + 2) + "|")
seen = []
for r in rows:
    if (r[0], r[1]) not in seen:
        seen.append((r[0], r[1]))
seen.sort(key=lambda k: ([r[0] for r in rows].index(k[0]), k[1] != "old"))
for ep, which in seen:
    sel = [nums(r) for r in rows if r[0] == ep and r[1] == which]
    med = [statistics.median(c) for c in zip(*sel)]
    errs = " ".join(r[10] for r in rows if r[0] == ep and r[1] == which and r[10])
    print(f"| {ep} | {which} | " + " | ".join(fmt(med)) + " |" + (f" {errs}" if errs else ""))
EOF
