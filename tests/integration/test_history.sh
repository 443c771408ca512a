#!/usr/bin/env bash
# Long history: a year of 30-second samples for 4 drives generated into a
# database (through the store API, with the rollup builder and pruning run as
# the daemon runs them), then the daemon serves it: a 1-year chart query returns
# at most 2,000 points per series, quickly; wear comes from the whole history.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# jq_file FILE 'python using j' [ARGS]: jq_py for bodies too long for argv.
jq_file() {
	local f=$1 code=$2
	shift 2
	python3 -c "import json,sys; j=json.load(open(sys.argv[1])); $code" "$f" "$@"
}

: "${NVMOND_HISTGEN:?run through ctest}"
# A sample every 30 s: the rollups (1-minute rows for 90 days, 1-hour rows for a
# year) and the queries on them are the same as with the daemon's 10 s default,
# every 1-minute row still merges several samples, and the year is generated in a
# third of the time (it was most of this test's run time).
interval=30
# Under the sanitizers (a Debug build) the generator runs far slower: a year at 120 s.
if grep -q '^NVMOND_SANITIZE:BOOL=ON' "$NVMOND_BUILD/CMakeCache.txt" 2> /dev/null; then
	interval=120
fi
DB=$TMP/year.db
if [ -n "${NVMOND_HISTORY_DB:-}" ]; then
	cp "$NVMOND_HISTORY_DB" "$DB" # a database generated before (by hand, while developing)
else
	"$NVMOND_HISTGEN" "$DB" 365 4 "$interval" > "$TMP/gen.log" 2>&1 ||
		fail "histgen: $(cat "$TMP/gen.log")"
	cat "$TMP/gen.log"
fi
raw_days=$(sqlite3 "$DB" "SELECT (max(ts_ms) - min(ts_ms)) / 86400000 FROM samples")
[ "$raw_days" -le 7 ] || fail "raw samples span $raw_days days, keep_raw is 7"
m1=$(sqlite3 "$DB" "SELECT count(*) FROM rollups WHERE res_s = 60 AND device_id = 1")
h1=$(sqlite3 "$DB" "SELECT count(*) FROM rollups WHERE res_s = 3600 AND device_id = 1")
per_min=$((interval > 60 ? interval : 60)) # a 1-minute row per minute that has samples
[ "$m1" -ge $((89 * 1440 * 60 / per_min)) ] && [ "$m1" -le $((91 * 1440 * 60 / per_min)) ] ||
	fail "$m1 1-minute rollups, expected 90 days"
[ "$h1" -ge $((364 * 24)) ] || fail "$h1 1-hour rollups, expected a year"

cat > "$TMP/nvmond.conf" << CONF
[daemon]
database = $DB
demo = yes
CONF
start_daemon -c "$TMP/nvmond.conf"
now=$(($(date +%s) * 1000))
year_ago=$((now - 365 * 86400000))

for id in 1 2 3 4; do
	url="/api/v1/devices/$id/series?from=$year_ago&to=$now&points=2000"
	t=$(curl -fsS -o "$TMP/s.json" -w '%{time_total}' "http://127.0.0.1:$PORT$url") || fail "GET $url"
	jq_file "$TMP/s.json" '
n = j["points"]
assert n == len(j["t"]) == len(j["temp_c"]["avg"]) == len(j["data_written_bytes"]), "columns differ"
assert 1500 <= n <= 2000, f"{n} points"
assert j["resolution_s"] == 3600, j["resolution_s"]
assert all(a < b for a, b in zip(j["t"], j["t"][1:])), "time order"
assert sum(v is not None for v in j["temp_c"]["avg"]) >= n - 2, "temperatures missing"
assert all(len(s["avg"]) == n for s in j["sensors"]) and len(j["sensors"]) == 2, "sensors"
w = j["data_written_bytes"]
assert all(a <= b for a, b in zip(w, w[1:])), "written bytes go backwards"
print("device %s: %d points, 1-year query %s s" % (j["device_id"], n, sys.argv[2]))
' "$t" || fail "1-year series of device $id: $(head -c 300 "$TMP/s.json")"
	awk -v t="$t" 'BEGIN { exit !(t < 2.0) }' || fail "1-year query took $t s"
done

# 30 days at a 1-hour step: 1-minute rollups merged hourly.
http_get "/api/v1/devices/2/series?from=$((now - 30 * 86400000))&to=$now&step=1h" > "$TMP/j.json"
jq_file "$TMP/j.json" 'assert j["step_s"] == 3600 and j["resolution_s"] == 3600 and 719 <= j["points"] <= 721, (j["step_s"], j["resolution_s"], j["points"])' ||
	fail "30 d at step=1h"
# The last hour: raw samples.
http_get "/api/v1/devices/5/series?points=100&from=$((now - 3600000))" > "$TMP/j.json"
jq_file "$TMP/j.json" 'assert j["resolution_s"] == 0 and j["points"] <= 100' || fail "1 h of a live drive"

# Refusals.
for q in "points=0" "points=10001" "from=-9223372036854775808" "to=9223372036854775807" "step=1s&from=$year_ago" "points=10&step=60s" "bogus=1" "from=yesterday"; do
	code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/api/v1/devices/1/series?$q")
	[ "$code" = 400 ] || fail "series?$q answered $code, not 400"
done
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/api/v1/devices/99/series")
[ "$code" = 404 ] || fail "unknown device: $code"

# Wear from the whole history: a 980 PRO 1TB has a built-in 600 TB rating.
http_get "/api/v1/devices/1/wear" > "$TMP/j.json"
jq_file "$TMP/j.json" '
assert j["rating"]["source"] == "builtin" and j["rating"]["rated_bytes"] == 600 * 10**12, j["rating"]
for k in ("1d", "7d", "30d"):
    assert j["rates"][k]["known"] and j["rates"][k]["complete"], k
assert j["projection_basis"] == "30d"
assert j["tbw_date"] is not None and j["percent_used_100_date"] is not None
assert len(j["daily"]) == 30 and all(d["bytes"] > 0 for d in j["daily"][:-1])
assert j["probe_bytes_written"] == 0 and j["host_bytes_written"] == j["bytes_written"]
' || fail "wear: $(cat "$TMP/j.json")"
stop_daemon
pass
