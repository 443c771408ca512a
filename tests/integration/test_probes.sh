#!/usr/bin/env bash
# Throughput probes end to end on the demo drives: the real daemon, curl, a real
# SQLite file and `nvmond probe` on the same database. Env: NVMOND_BIN (ctest).
set -u
. "$(dirname "$0")/lib.sh"
need_tools curl python3

probe_conf probe <<CONF
phase_duration = 1s
[device "DEMO950PRO00001"]
probe_budget_day = 100MB
probe_budget_month = 1GB
[daemon]
# The budgets above are checked from zero: no demo year of past probe runs.
demo_history = no
CONF
probe_start

dev_id() { # serial -> id
	jq_py "$(http_get /api/v1/devices)" "print([d['id'] for d in j['devices'] if d['serial']=='$1'][0])"
}
D0=$(dev_id DEMO950PRO00001)
D1=$(dev_id DEMO980PRO00002)

# post DEVICE BODY [TOKEN] -> prints "STATUS BODY"
post() {
	local auth=()
	[ -n "${3:-}" ] && auth=(-H "Authorization: Bearer $3")
	curl -sS --max-time 10 -o "$TMP/post.out" -w '%{http_code}' "${auth[@]}" \
		-H 'Content-Type: application/json' -d "$2" "$URL/api/v1/devices/$1/probes"
	echo " $(cat "$TMP/post.out")"
}
wait_done() { # id -> final detail JSON
	local j
	for _ in $(seq 300); do
		j=$(http_get "/api/v1/probes/$1")
		[ "$(jq_py "$j" "print(j['state'])")" != running ] && { echo "$j"; return 0; }
		sleep 0.1
	done
	fail "probe $1 still running after 30 s"
}

# Authentication and validation.
out=$(post "$D1" '{"preset":"seq1m-q8"}')
[ "${out%% *}" = 401 ] || fail "POST without token: $out"
out=$(post "$D1" '{"preset":"seq9m"}' "$TOKEN")
[ "${out%% *}" = 400 ] || fail "unknown preset: $out"
out=$(post 999 '{"preset":"seq1m-q8"}' "$TOKEN")
[ "${out%% *}" = 404 ] || fail "unknown device: $out"

# A probe runs; a second one on the same drive is refused while it does.
out=$(post "$D1" '{"preset":"seq1m-q8"}' "$TOKEN")
[ "${out%% *}" = 202 ] || fail "POST seq1m-q8: $out"
ID=$(jq_py "${out#* }" "print(j['id'])")
out=$(post "$D1" '{"preset":"rnd4k-q1"}' "$TOKEN")
[ "${out%% *}" = 409 ] || fail "second probe while one runs: $out"
J=$(wait_done "$ID")
jq_py "$J" "
assert j['state'] == 'done', j['state']
assert j['engine'] == 'demo' and j['target'] == 'demo:1'
p = j['phases']
assert [x['name'] for x in p] == ['read', 'write'], p
assert p[0]['read']['mb_per_s'] > 1000 and p[1]['write']['mb_per_s'] > 1000
assert p[1]['write']['latency_ns']['p50'] > 0
assert len(p[0]['series']) >= 3 and len(p[1]['series']) >= 1
assert sum(s[2] for s in p[1]['series']) == p[1]['write']['bytes'] == j['bytes_written']
assert len(j['smart']) >= 1
" || fail "seq1m-q8 result: $J"

# The budget: demo0 may write 100 MB a day; the write phase stops there, then 429.
# demo0 runs hot every five minutes: at its warning temperature a probe is refused
# (409), and a run that meets it is aborted. The run starts well under it.
wait_cool "$D0"
out=$(post "$D0" '{"preset":"seq1m-q1"}' "$TOKEN")
[ "${out%% *}" = 202 ] || fail "POST on demo0: $out"
J=$(wait_done "$(jq_py "${out#* }" "print(j['id'])")")
jq_py "$J" "
assert j['state'] == 'done', j
assert 99e6 <= j['bytes_written'] <= 100e6, j['bytes_written']
" || fail "budgeted run: $J"
out=$(post "$D0" '{"preset":"rnd4k-q1"}' "$TOKEN")
[ "${out%% *}" = 429 ] || fail "over budget: $out"
jq_py "${out#* }" "assert 'budget' in j['error'], j" || fail "429 reason: $out"
# demo1 sets no budget: 0.1 % of its rated endurance a month, and the 980 PRO 1TB is
# rated 600 TBW in the built-in table (issue 28 §11: the budget took 150 TB for any
# drive without rated_tbw).
jq_py "$(http_get "/api/v1/devices/$D1/probes")" "
b = j['budget']
assert (b['month_bytes'], b['day_bytes']) == (600 * 10**9, 150 * 10**9), b
" || fail "demo1's default budget: $(http_get "/api/v1/devices/$D1/probes" | head -c 300)"
L=$(http_get "/api/v1/devices/$D0/probes")
jq_py "$L" "
assert j['budget']['day_bytes'] == 100000000
assert j['budget']['used_day_bytes'] == j['probes'][0]['bytes_written']
assert j['running'] is None and 'sustained-write' in j['presets']
" || fail "probe list: $L"

# sustained-write finds demo1's write cache (24 GB) and stops; once a week only.
# While it runs, GET shows where it is, and its series grows from poll to poll.
out=$(post "$D1" '{"preset":"sustained-write"}' "$TOKEN")
[ "${out%% *}" = 202 ] || fail "POST sustained-write: $out"
ID=$(jq_py "${out#* }" "print(j['id'])")
seen=
for _ in $(seq 100); do
	J=$(http_get "/api/v1/probes/$ID")
	jq_py "$J" "
p = j.get('progress')
assert j['state'] == 'running' and p and len(p['series']) >= 2
" 2>/dev/null || { sleep 0.1; continue; }
	if [ -z "$seen" ]; then
		seen=$J
		sleep 0.6
		continue
	fi
	python3 - "$seen" "$J" <<'PY' || fail "progress: $seen / $J"
import json, sys
a, b = (json.loads(x)["progress"] for x in sys.argv[1:])
for p in (a, b):
    assert p["name"] == "write" and p["phase"] == 0 and p["phases"] == 1, p
    assert 0 < p["fraction"] < 1 and p["mb_per_s"] > 1000, p
    assert p["bytes_written"] == sum(s[2] for s in p["series"]) and p["bytes_read"] == 0, p
    assert p["elapsed_ms"] == p["series"][-1][0], p
assert len(b["series"]) > len(a["series"]) and b["series"][:len(a["series"])] == a["series"]
assert b["bytes_written"] > a["bytes_written"] and b["fraction"] > a["fraction"]
PY
	break
done
[ -n "$seen" ] || fail "no progress seen while sustained-write ran: $J"
J=$(wait_done "$ID")
jq_py "$J" "
assert j['state'] == 'stopped', j['state']
ev = [e for e in j['phases'][0]['events'] if e['kind'] == 'cliff']
assert len(ev) == 1, j['phases'][0]['events']
assert 22e9 < ev[0]['bytes_before'] < 26e9, ev
assert ev[0]['mb_per_s_before'] > 4000 and ev[0]['mb_per_s_after'] < 2000, ev
" || fail "sustained-write: $(jq_py "$J" "j['phases'][0].pop('series'); print(j['phases'])")"
out=$(post "$D1" '{"preset":"sustained-write"}' "$TOKEN")
[ "${out%% *}" = 429 ] || fail "second sustained-write in a week: $out"

# nvmond probe on the same database, while the daemon runs.
"$NVMOND_BIN" --demo -c "$TMP/nvmond.conf" --db "$DB" probe --device demo1 --preset rnd4k-q32 \
	--json > "$TMP/cli.json" 2> "$TMP/cli.err" || fail "nvmond probe: $(cat "$TMP/cli.err")"
C=$(cat "$TMP/cli.json")
jq_py "$C" "
assert j['trigger'] == 'cli' and j['state'] == 'done'
assert j['phases'][0]['random'] and j['phases'][0]['read']['iops'] > 100000
" || fail "cli result: $C"
CID=$(jq_py "$C" "print(j['id'])")
http_get "/api/v1/probes/$CID" > /dev/null
"$NVMOND_BIN" --demo -c "$TMP/nvmond.conf" --db "$DB" probe --device demo0 --preset seq1m-q8 \
	> "$TMP/cli.txt" 2>&1 && fail "over-budget cli probe succeeded"
grep -q "budget" "$TMP/cli.txt" || fail "cli refusal: $(cat "$TMP/cli.txt")"
expect_exit 2 "$NVMOND_BIN" --demo --db "$DB" probe --device demo1 --preset nope
expect_exit 2 "$NVMOND_BIN" --demo --db "$DB" probe --preset seq1m-q1

# Cancel: only with the token, only a running probe; the run is kept as aborted.
cancel() { # cancel ID [TOKEN] -> prints "STATUS BODY"
	local auth=()
	[ -n "${2:-}" ] && auth=(-H "Authorization: Bearer $2")
	curl -sS --max-time 10 -o "$TMP/cancel.out" -w '%{http_code}' "${auth[@]}" -X POST \
		"$URL/api/v1/probes/$1/cancel"
	echo " $(cat "$TMP/cancel.out")"
}
out=$(post "$D1" '{"preset":"seq1m-q1"}' "$TOKEN")
[ "${out%% *}" = 202 ] || fail "POST seq1m-q1: $out"
ID=$(jq_py "${out#* }" "print(j['id'])")
out=$(cancel "$ID")
[ "${out%% *}" = 401 ] || fail "cancel without token: $out"
out=$(cancel "$ID" "$TOKEN")
[ "${out%% *}" = 202 ] || fail "cancel: $out"
J=$(wait_done "$ID")
jq_py "$J" "
assert j['state'] == 'aborted' and j['reason'] == 'cancelled through the API', j
assert j['ended'] and 'progress' not in j
" || fail "cancelled run: $J"
out=$(cancel "$ID" "$TOKEN")
[ "${out%% *}" = 409 ] && jq_py "${out#* }" "assert 'not running (aborted)' in j['error']" ||
	fail "cancel of a finished probe: $out"
out=$(cancel 99999 "$TOKEN")
[ "${out%% *}" = 404 ] || fail "cancel of no probe: $out"
out=$(post "$D1" '{"preset":"seq1m-q1"}' "$TOKEN")
[ "${out%% *}" = 202 ] || fail "a probe after a cancel: $out"
J=$(wait_done "$(jq_py "${out#* }" "print(j['id'])")")
jq_py "$J" "assert j['state'] == 'done', j" || fail "probe after cancel: $J"

# A running probe is cut short and recorded at shutdown.
out=$(post "$D1" '{"preset":"rnd4k-q32"}' "$TOKEN")
[ "${out%% *}" = 202 ] || fail "POST before stop: $out"
ID=$(jq_py "${out#* }" "print(j['id'])")
stop_daemon
probe_start
J=$(http_get "/api/v1/probes/$ID")
jq_py "$J" "assert j['state'] in ('aborted', 'done'), j['state']" || fail "after stop: $J"
stop_daemon
pass
