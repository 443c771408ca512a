#!/usr/bin/env bash
# Benchmark by hand (not part of ctest): nvmond's history against a real Prometheus
# TSDB holding the same samples, side by side in one run.
#
# nvmond-histgen makes DAYS days of INTERVAL_S-second samples for one drive twice from
# its seeded generator: once as the daemon keeps them (raw for 7 days, then 1-minute
# and 1-hour rollups), once with every raw sample kept, which is exported as the
# composite temperature (nvmond_temperature_celsius{sensor="composite"}, whole °C as
# /metrics says it) in OpenMetrics and backfilled with `promtool tsdb
# create-blocks-from openmetrics`. The blocks are made at the largest size
# Prometheus's own compaction reaches (--max-block-duration=486h: 2 h × 3^5, the last
# step under its 31-day cap), so no compaction is left to wait for; the retention is
# 10 years so that nothing is dropped. Prometheus then runs on that directory.
#
# Over the last RANGE_DAYS (90) days, nvmond answers GET /api/v1/devices/1/series?
# points=POINTS (min, avg and max of every column in one request); Prometheus answers
# the trio a dashboard needs for one min/avg/max band: query_range of min_over_time,
# avg_over_time and max_over_time over [step] at nvmond's step. Both are asked
# without gzip. Printed:
#   - one client on a kept-alive connection, N rounds interleaved (one nvmond
#     request, then Prometheus's three in a row): p50/p99 per request and per trio;
#   - wrk -t2 -c64 --timeout 30s for DURATION on each in turn (Prometheus's three queries in
#     rotation through a Lua script): req/s and p99; trios/s = req/s / 3;
#   - the ratios nvmond / Prometheus for the trio, and both servers' RSS.
#
# Usage: tests/bench/vs-prometheus.sh [BUILD_DIR]   (default: build)
#   NVMOND=path   the daemon to measure (default BUILD_DIR/nvmond); HISTGEN=path
#   (default BUILD_DIR/tests/nvmond-histgen). DAYS=91 RANGE_DAYS=90 INTERVAL_S=10
#   POINTS=2000 N=100 DURATION=30s PROMETHEUS=prometheus PROMTOOL=promtool.
set -euo pipefail
build=${1:-build}
src=$(cd "$(dirname "$0")/../.." && pwd)
nvmond=${NVMOND:-$build/nvmond}
histgen=${HISTGEN:-$build/tests/nvmond-histgen}
prometheus=${PROMETHEUS:-prometheus}
promtool=${PROMTOOL:-promtool}
days=${DAYS:-91}
range_days=${RANGE_DAYS:-90}
interval=${INTERVAL_S:-10}
points=${POINTS:-2000}
n=${N:-100}
duration=${DURATION:-30s}
for t in wrk sqlite3 python3 curl "$prometheus" "$promtool"; do
	command -v "$t" > /dev/null || { echo "$t is not installed" >&2; exit 1; }
done
for f in "$nvmond" "$histgen"; do
	[ -x "$f" ] || { echo "$f missing: build it first" >&2; exit 1; }
done
[ "$range_days" -lt "$days" ] || { echo "RANGE_DAYS must be below DAYS" >&2; exit 1; }

tmp=$(mktemp -d /tmp/nvmond-vs-prom.XXXXXX)
npid='' ppid_=''
cleanup() {
	for p in $npid $ppid_; do
		kill "$p" 2> /dev/null || true
	done
	for p in $npid $ppid_; do
		wait "$p" 2> /dev/null || true
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
secs() { python3 -c "import time; print(f'{time.monotonic() - $1:.1f}')"; }
mono() { python3 -c 'import time; print(time.monotonic())'; }

echo "nvmond: $nvmond ($(git -C "$src" log -1 --format=%h 2> /dev/null || echo '?'))"
echo "prometheus: $("$prometheus" --version 2>&1 | head -1)"
echo "data: $days days of ${interval} s samples, 1 drive; compared range: last $range_days days"

# 1. The same generator twice: as the daemon keeps it, and with every raw sample.
t0=$(mono)
"$histgen" "$tmp/nvmond.db" "$days" 1 "$interval" > /dev/null
"$histgen" "$tmp/raw.db" "$days" 1 "$interval" $((days + 1)) > /dev/null
echo "generated both databases in $(secs "$t0") s; nvmond's: $(du -h "$tmp/nvmond.db" | cut -f1)"

# 2. OpenMetrics (timestamps in seconds, one family, # EOF) and backfill.
t0=$(mono)
{
	echo '# HELP nvmond_temperature_celsius Composite temperature (sensor="composite") and each reported sensor.'
	echo '# TYPE nvmond_temperature_celsius gauge'
	sqlite3 "$tmp/raw.db" "SELECT printf('nvmond_temperature_celsius{device=\"%s\",model=\"%s\",serial=\"%s\",sensor=\"composite\"} %d %.3f', d.name, d.model, d.serial, s.temperature_k - 273, s.ts_ms / 1000.0) FROM samples s JOIN devices d ON d.id = s.device_id WHERE d.id = 1 ORDER BY s.ts_ms"
	echo '# EOF'
} > "$tmp/samples.om"
nsamples=$(($(wc -l < "$tmp/samples.om") - 3))
rm "$tmp/raw.db"
mkdir "$tmp/prom"
"$promtool" tsdb create-blocks-from openmetrics --quiet --max-block-duration=486h \
	"$tmp/samples.om" "$tmp/prom" > "$tmp/promtool.log" 2>&1 ||
	{ cat "$tmp/promtool.log" >&2; exit 1; }
rm "$tmp/samples.om"
echo "backfilled $nsamples samples into $(find "$tmp/prom" -name meta.json | wc -l) blocks" \
	"($(du -sh "$tmp/prom" | cut -f1)) in $(secs "$t0") s"

# 3. Both servers.
pport=$(free_port)
printf 'global:\n  scrape_interval: 10s\nscrape_configs: []\n' > "$tmp/prometheus.yml"
"$prometheus" --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/prom" \
	--storage.tsdb.retention.time=10y --web.listen-address="127.0.0.1:$pport" \
	> "$tmp/prometheus.log" 2>&1 &
ppid_=$!
nport=$(free_port)
# wrk opens 64 connections from one address: the default per-address limit (32) would
# refuse half of them and the figure would count nvmond's own refusals.
printf '[daemon]\ndatabase = %s\ndemo = yes\nweb_root = %s/web\n[http]\nmax_connections_per_ip = 64\n' \
	"$tmp/nvmond.db" "$src" > "$tmp/nvmond.conf"
"$nvmond" -c "$tmp/nvmond.conf" --listen "127.0.0.1:$nport" > "$tmp/nvmond.log" 2>&1 &
npid=$!
for _ in $(seq 300); do
	curl -fsS "http://127.0.0.1:$pport/-/ready" > /dev/null 2>&1 &&
		curl -fsS "http://127.0.0.1:$nport/healthz" > /dev/null 2>&1 && break
	sleep 0.1
done
curl -fsS "http://127.0.0.1:$pport/-/ready" > /dev/null ||
	{ tail "$tmp/prometheus.log" >&2; exit 1; }
curl -fsS "http://127.0.0.1:$nport/healthz" > /dev/null || { tail "$tmp/nvmond.log" >&2; exit 1; }
sleep 2

# 4. The same range: nvmond's step for POINTS points, Prometheus at that step.
to=$(date +%s)
from=$((to - range_days * 86400))
nurl="/api/v1/devices/1/series?from=$((from * 1000))&to=$((to * 1000))&points=$points"
curl -fsS "http://127.0.0.1:$nport$nurl" > "$tmp/nvmond.json"
step=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["step_s"])' "$tmp/nvmond.json")
sel='nvmond_temperature_celsius{serial="HISTGEN0000",sensor="composite"}'
purls=()
for f in min avg max; do
	q=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' \
		"${f}_over_time(${sel}[${step}s])")
	purls+=("/api/v1/query_range?query=$q&start=$from&end=$to&step=$step")
	curl -fsS "http://127.0.0.1:$pport${purls[-1]}" > "$tmp/prom-$f.json"
done
python3 - "$tmp" << 'EOF'
import json, sys
t = sys.argv[1]
nv = json.load(open(f"{t}/nvmond.json"))
print(f"nvmond: {nv['points']} points, step {nv['step_s']} s, resolution {nv['resolution_s']} s,"
      f" {len(json.dumps(nv, separators=(',', ':')))} bytes")
for f, pick in (("min", min), ("avg", None), ("max", max)):
    p = json.load(open(f"{t}/prom-{f}.json"))["data"]["result"]
    vals = [float(v) for _, v in p[0]["values"]] if p else []
    col = [v for v in nv["temp_c"][f] if v is not None]
    if pick:
        print(f"  {f}: Prometheus {len(vals)} points, {f} {pick(vals):g} °C;"
              f" nvmond {f} {pick(col)} °C")
    else:
        print(f"  avg: Prometheus {len(vals)} points, mean {sum(vals) / len(vals):.2f} °C;"
              f" nvmond mean {sum(col) / len(col):.2f} °C")
EOF

# 5. One client, interleaved.
python3 - "$nport" "$pport" "$n" "$nurl" "${purls[@]}" > "$tmp/single.txt" << 'EOF'
import http.client, sys, time
nport, pport, n, nurl, purls = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5:]
nc = http.client.HTTPConnection("127.0.0.1", int(nport))
pc = http.client.HTTPConnection("127.0.0.1", int(pport))
def get(c, u):
    t = time.perf_counter()
    c.request("GET", u)
    r = c.getresponse()
    r.read()
    assert r.status == 200, r.status
    return (time.perf_counter() - t) * 1000
nv, per, trio = [], [], []
for _ in range(n):
    nv.append(get(nc, nurl))
    q = [get(pc, u) for u in purls]
    per += q
    trio.append(sum(q))
def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))]
for name, v in (("nvmond", nv), ("prom_query", per), ("prom_trio", trio)):
    print(name, f"{pct(v, 50):.1f}", f"{pct(v, 99):.1f}")
EOF
read -r _ n50 n99 < <(grep '^nvmond ' "$tmp/single.txt")
read -r _ q50 q99 < <(grep '^prom_query ' "$tmp/single.txt")
read -r _ t50 t99 < <(grep '^prom_trio ' "$tmp/single.txt")

# 6. wrk, one server at a time.
cat > "$tmp/trio.lua" << 'EOF'
local paths, i = {}, 0
function init(args)
	for _, p in ipairs(args) do paths[#paths + 1] = p end
end
function request()
	i = i % #paths + 1
	return wrk.format("GET", paths[i])
end
EOF
wrk_run() { # OUT WRK_ARGS…
	local out=$1
	shift
	wrk -t2 -c64 -d"$duration" --timeout 30s --latency "$@" > "$out" 2>&1
	# A figure that counts refused or failed requests measures the refusals.
	if grep -qE "Non-2xx|Socket errors" "$out"; then
		grep -E "Non-2xx|Socket errors" "$out" | sed "s/^/  $(basename "$out"): /" >&2
		echo "error: requests failed: the figures would count them; no result" >&2
		exit 1
	fi
}
wrk_run "$tmp/wrk-nvmond.txt" "http://127.0.0.1:$nport$nurl"
wrk_run "$tmp/wrk-prom.txt" -s "$tmp/trio.lua" "http://127.0.0.1:$pport/" -- "${purls[@]}"
ms() { # wrk's 99% latency in ms
	awk '$1 == "99%" { v = $2; u = v; sub(/[0-9.]+/, "", u); sub(/[a-z]+$/, "", v);
		print (u == "us" ? v / 1000 : u == "s" ? v * 1000 : u == "m" ? v * 60000 : v) }' "$1"
}
rps() { awk '/^Requests\/sec/ { print $2 }' "$1"; }
nr=$(rps "$tmp/wrk-nvmond.txt") np=$(ms "$tmp/wrk-nvmond.txt")
pr=$(rps "$tmp/wrk-prom.txt") pp=$(ms "$tmp/wrk-prom.txt")
rss() { awk '/^VmRSS/ { printf "%.0f MiB", $2 / 1024 }' "/proc/$1/status"; }

r() { python3 -c "print(f'{$1 / $2:.1f}×')"; }
cat << EOF

One client, $n rounds (ms; a Prometheus trio = its three queries in a row):
| | p50 | p99 |
|---|---|---|
| nvmond series (min/avg/max in one request) | $n50 | $n99 |
| Prometheus, one query | $q50 | $q99 |
| Prometheus, min+avg+max trio | $t50 | $t99 |
| **trio / nvmond** | **$(r "$t50" "$n50")** | **$(r "$t99" "$n99")** |

wrk -t2 -c64 -d$duration:
| | req/s | min/avg/max bands/s | p99 per request (ms) |
|---|---|---|---|
| nvmond series | $nr | $nr | $np |
| Prometheus, three queries in rotation | $pr | $(python3 -c "print(f'{$pr / 3:.1f}')") | $pp |
| **nvmond / Prometheus** | | **$(python3 -c "print(f'{$nr / ($pr / 3):.1f}×')")** | **$(r "$pp" "$np")** (per request) |

RSS after the load: nvmond $(rss "$npid"), Prometheus $(rss "$ppid_"). Target: ≥ 30× for the trio.
EOF
