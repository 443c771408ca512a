#!/usr/bin/env bash
# Probe budgets and locks across processes, on the demo drives, with the real
# daemon, `nvmond probe`, curl and one SQLite file (docs/probes.md, Safety):
# - one probe per drive across every nvmond process: the daemon refuses while
#   `nvmond probe` runs on the drive and the other way round, naming the holder;
# - a run is charged its reservation while it runs;
# - SIGTERM stops `nvmond probe` like Ctrl-C, and the run is charged;
# - after kill -9 (of the CLI or the daemon) the run is failed and charged at
#   least what it was seen writing, by the next process that takes the drive;
# - a sustained-write that failed after writing still counts for sustained_every.
# Env: NVMOND_BIN (ctest).
set -u
. "$(dirname "$0")/lib.sh"
need_tools curl python3

probe_conf safety <<CONF
phase_duration = 3s
[device "DEMO980PRO00002"]
probe_sustained_limit = 200GB
CONF
probe_start
D1=$(jq_py "$(http_get /api/v1/devices)" \
	"print([d['id'] for d in j['devices'] if d['serial']=='DEMO980PRO00002'][0])")

post() { # post BODY -> "STATUS BODY"
	curl -sS --max-time 10 -o "$TMP/post.out" -w '%{http_code}' \
		-H "Authorization: Bearer $TOKEN" -d "$1" "$URL/api/v1/devices/$D1/probes"
	echo " $(cat "$TMP/post.out")"
}
run_state() { # id -> the run as the API lists it (JSON)
	jq_py "$(http_get "/api/v1/devices/$D1/probes?limit=1000")" \
		"print(json.dumps([r for r in j['probes'] if r['id'] == $1][0]))"
}
# wait_progress ID PHASE_NAME -> the run detail once its progress is in that phase
wait_progress() {
	local j
	for _ in $(seq 200); do
		j=$(http_get "/api/v1/probes/$1")
		jq_py "$j" "p = j.get('progress'); assert p and p['name'] == '$2' and p['bytes_written'] + p['bytes_read'] > 0" \
			2>/dev/null && { echo "$j"; return 0; }
		sleep 0.1
	done
	fail "probe $1 never showed progress in its $2 phase: $j"
}
wait_state() { # id -> final run JSON
	local j
	for _ in $(seq 300); do
		j=$(run_state "$1")
		[ "$(jq_py "$j" "print(j['state'])")" != running ] && { echo "$j"; return 0; }
		sleep 0.1
	done
	fail "probe $1 still running"
}
cli() { # cli ARGS... (nvmond probe on demo1, same config and database)
	"$NVMOND_BIN" --demo -c "$TMP/nvmond.conf" --db "$DB" probe --device demo1 "$@"
}
# The same in the background: $! is nvmond's own pid.
CLI_ARGS=(--demo -c "$TMP/nvmond.conf" --db "$DB" probe --device demo1)

# 1. The daemon probes demo1: `nvmond probe` is refused, naming the daemon;
#    while it runs the budget holds its whole reservation.
out=$(post '{"preset":"seq1m-q1"}')
[ "${out%% *}" = 202 ] || fail "POST: $out"
ID=$(jq_py "${out#* }" "print(j['id'])")
wait_progress "$ID" read > /dev/null
L=$(http_get "/api/v1/devices/$D1/probes")
jq_py "$L" "
r = [p for p in j['probes'] if p['id'] == $ID][0]
assert r['state'] == 'running'
# seq1m-q1 writes at most the 1 GiB probe area: that much is charged up front.
assert r['bytes_charged'] == 1 << 30, r
assert j['budget']['used_day_bytes'] >= r['bytes_charged'], j['budget']
" || fail "reservation while running: $L"
rc=0
cli --preset seq1m-q1 > "$TMP/cli.out" 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "nvmond probe while the daemon probes: exit $rc"
grep -q "another nvmond process (pid $DAEMON_PID, the daemon)" "$TMP/cli.out" ||
	fail "CLI refusal: $(cat "$TMP/cli.out")"
J=$(wait_state "$ID")
jq_py "$J" "
assert j['state'] == 'done', j
assert j['bytes_charged'] == j['bytes_written'] > 0, j  # trued up at the end
" || fail "run after the CLI was refused: $J"

# wait_cli_run PRESET -> the id of the CLI's run once the database shows it running
wait_cli_run() {
	local id
	for _ in $(seq 200); do
		id=$(jq_py "$(http_get "/api/v1/devices/$D1/probes")" \
			"r = j['probes'][0]; print(r['id'] if r['state'] == 'running' and r['trigger'] == 'cli' and r['preset'] == '$1' else '')")
		[ -n "$id" ] && { echo "$id"; return 0; }
		sleep 0.1
	done
	fail "the CLI's $1 run never showed up as running"
}

# 2. `nvmond probe` runs: the daemon answers 409, naming it.
"$NVMOND_BIN" "${CLI_ARGS[@]}" --preset seq1m-q1 --json > "$TMP/cli2.json" 2> "$TMP/cli2.err" &
CLI=$!
wait_cli_run seq1m-q1 > /dev/null
out=$(post '{"preset":"rnd4k-q1"}')
[ "${out%% *}" = 409 ] || fail "POST while nvmond probe runs: $out"
jq_py "${out#* }" "assert 'another nvmond process (pid $CLI, nvmond probe)' in j['error'], j" ||
	fail "409 from the daemon: $out"
wait "$CLI" || fail "nvmond probe: $(cat "$TMP/cli2.err")"

# wait_written ID -> once the database shows the running run has written (it
# records what it wrote every second)
wait_written() {
	for _ in $(seq 100); do
		jq_py "$(run_state "$1")" "assert j['state'] == 'running' and j['bytes_written'] > 0" \
			2>/dev/null && return 0
		sleep 0.1
	done
	fail "run $1 never recorded a written byte: $(run_state "$1")"
}

# 3. SIGTERM stops `nvmond probe` while it writes: aborted, charged.
"$NVMOND_BIN" "${CLI_ARGS[@]}" --preset sustained-write > "$TMP/cli3.out" 2>&1 &
CLI=$!
CID=$(wait_cli_run sustained-write)
wait_written "$CID"
kill -TERM "$CLI"
rc=0
wait "$CLI" || rc=$?
[ "$rc" = 1 ] || fail "nvmond probe after SIGTERM exited $rc: $(cat "$TMP/cli3.out")"
J=$(run_state "$CID")
jq_py "$J" "
assert j['state'] == 'aborted' and j['reason'] == 'interrupted (a signal)', j
assert j['bytes_written'] > 0 and j['bytes_charged'] >= j['bytes_written'], j
" || fail "SIGTERM: $J"
# It ran: sustained_every (7 d) counts it. Forget the week for what follows.
sqlite3_shift() {
	python3 - "$DB" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("UPDATE probe_runs SET started_ms = started_ms - 8 * 86400000 WHERE preset = 'sustained-write'")
c.commit()
PY
}
out=$(post '{"preset":"sustained-write"}')
[ "${out%% *}" = 429 ] || fail "sustained-write right after an aborted one: $out"
sqlite3_shift

# 4. kill -9 of `nvmond probe`: the daemon's next probe of the drive settles
#    the dead run, charging it what it may have written.
"$NVMOND_BIN" "${CLI_ARGS[@]}" --preset sustained-write > /dev/null 2>&1 &
CLI=$!
K=$(wait_cli_run sustained-write)
wait_written "$K"
W=$(jq_py "$(run_state "$K")" "print(j['bytes_written'])")
kill -9 "$CLI"
wait "$CLI" 2>/dev/null
J=$(run_state "$K")
jq_py "$J" "assert j['state'] == 'running' and j['bytes_charged'] > $W, j" ||
	fail "a killed run holds its reservation: $J"
out=$(post '{"preset":"seq1m-q1"}')
[ "${out%% *}" = 202 ] || fail "POST after the CLI died: $out"
J=$(run_state "$K")
jq_py "$J" "
assert j['state'] == 'failed' and 'ended during the run' in j['reason'], j
assert j['bytes_charged'] >= j['bytes_written'] >= $W, j
" || fail "the dead CLI run: $J"
wait_state "$(jq_py "${out#* }" "print(j['id'])")" > /dev/null
sqlite3_shift

# 5. kill -9 of the daemon mid-run: the restart settles the run, charging at
#    least what its progress showed written. The failed sustained-write wrote,
#    so it counts for sustained_every (7 d).
out=$(post '{"preset":"sustained-write"}')
[ "${out%% *}" = 202 ] || fail "POST sustained-write: $out"
ID=$(jq_py "${out#* }" "print(j['id'])")
wait_progress "$ID" write > /dev/null
wait_written "$ID"
P=$(http_get "/api/v1/probes/$ID")
SEEN=$(jq_py "$P" "print(j['progress']['bytes_written'])")
kill -9 "$DAEMON_PID"
wait "$DAEMON_PID" 2>/dev/null
DAEMON_PID=
probe_start
J=$(run_state "$ID")
jq_py "$J" "
assert j['state'] == 'failed', j
assert j['bytes_charged'] >= $SEEN > 0, (j['bytes_charged'], $SEEN)
" || fail "after kill -9 of the daemon: $J (progress showed $SEEN bytes)"
out=$(post '{"preset":"sustained-write"}')
[ "${out%% *}" = 429 ] && jq_py "${out#* }" "assert 'sustained_every' in j['error'], j" ||
	fail "a failed sustained-write that wrote still counts: $out"
grep -q "left by a process that died are now failed" "$DAEMON_LOG" ||
	fail "the restart did not say it settled the dead run"
stop_daemon
pass
