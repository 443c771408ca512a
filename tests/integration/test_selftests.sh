#!/usr/bin/env bash
# Device self-tests end to end on the demo drives (issue 12), through the real
# daemon, HTTP and SQLite file:
#  run 0: the demo year's history (the 950 PRO failed segment 3 once, and its
#    selftest_failed alert resolved at the next passing extended test); demo2
#    cannot test: 409, and the CLI exits 1; a bad schedule stops the start
#    (exit 2) naming its section and key.
#  run 1: schedules. Each drive had a scheduled short test yesterday; today's,
#    two minutes before the start, was missed while nvmond was down: the 950
#    PRO catches it up once (origin catch-up), the 980 PRO skips it (its probe
#    lock is held by another process: the skip is recorded with the reason).
#    Then a reload schedules an extended test for the 950 PRO at the next
#    minute: it falls due while the catch-up's short test runs, and is skipped
#    ("already running").
#  run 2: a restart runs and skips nothing again.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

DB=$TMP/nvmond.db
LOCKS=$TMP/locks
mkdir -p "$LOCKS"
conf() { # conf [LINES...]: the configuration, with extra lines at the end
	cat > "$TMP/nvmond.conf" << CONF
[daemon]
database = $DB
demo = yes
demo_drives = 3
poll_interval = 1s
[http]
token = t0ken
[probes]
lock_dir = $LOCKS
CONF
	[ $# -eq 0 ] || printf '%s\n' "$@" >> "$TMP/nvmond.conf"
}
api() { # api METHOD PATH [BODY]: prints "STATUS BODY"
	curl -sS --max-time 10 -o "$TMP/body" -w '%{http_code}' -X "$1" -H 'Authorization: Bearer t0ken' \
		-H 'Content-Type: application/json' ${3:+--data "$3"} "http://127.0.0.1:$PORT$2" > "$TMP/status"
	echo "$(cat "$TMP/status") $(cat "$TMP/body")"
}
q() { sqlite3 "$DB" "$1"; }

# --- run 0: history, capability, a bad schedule ---------------------------
conf '[device "DEMO950PRO00001"]' 'selftest_schedule = weekly Someday 02:00 short'
expect_exit 2 "$NVMOND_BIN" -c "$TMP/nvmond.conf" --listen "127.0.0.1:$(free_port)"
grep -q '\[device "DEMO950PRO00001"\] selftest_schedule' "$LAST_STDERR" ||
	fail "a bad schedule is not named: $(cat "$LAST_STDERR")"
conf
start_daemon -c "$TMP/nvmond.conf"
wait_polls 6
DEVS=$(http_get /api/v1/devices)
id_of() { jq_py "$DEVS" "print([d['id'] for d in j['devices'] if d['serial'] == '$1'][0])"; }
D0=$(id_of DEMO950PRO00001)
D1=$(id_of DEMO980PRO00002)
D2=$(jq_py "$DEVS" "print([d['id'] for d in j['devices'] if d['name'] == 'demo2'][0])")
ST0=$(http_get "/api/v1/devices/$D0/selftests?limit=1000")
jq_py "$ST0" "
h = j['history']
assert j['supported'] is True and j['edstt_min'] == 10, (j['supported'], j['edstt_min'])
assert len(h) >= 60, len(h)                      # weekly short + monthly extended, a year
f = [x for x in h if x['failed']]
assert [(x['type'], x['segment'], x['nsid'], x['sct'], x['sc']) for x in f] == [('extended', 3, 1, 2, 0x81)], f
assert f[0]['valid'] == ['nsid', 'lba', 'sct', 'sc'] and f[0]['lba'] > 0, f[0]
# newest first, each result once
assert [x['seen_ms'] for x in h] == sorted([x['seen_ms'] for x in h], reverse=True)
assert len({(x['poh'], x['code'], x['result_code']) for x in h}) == len(h)
assert j['last']['extended']['passed'], j['last']  # a later extended test passed
# no schedule configured: a demo drive runs its demo schedule through nvmond's scheduler
assert j['schedule'] == 'weekly Sun 02:00 short, monthly 1 03:00 extended', j['schedule']
assert j['next'] and j['next']['type'] in ('short', 'extended'), j['next']
assert [x['origin'] for x in h if x['passed']][:3] == ['schedule'] * 3, h[:3]
assert [x['origin'] for x in f] == [None], f      # the failed test: another tool's
" || fail "950 PRO self-test history: $ST0"
ALERTS=$(http_get /api/v1/alerts)
jq_py "$ALERTS" "
f = [a for a in j['history'] if a['rule'] == 'selftest_failed' and a['device_id'] == $D0]
assert len(f) == 1 and f[0]['state'] == 'resolved' and 'segment 3' in f[0]['message'], f
assert not [a for a in j['active'] if a['rule'].startswith('selftest')], j['active']
" || fail "the demo year's selftest_failed alert: $ALERTS"
ST2=$(http_get "/api/v1/devices/$D2/selftests")
jq_py "$ST2" "
assert j['supported'] is False and 'OACS bit 4' in j['unsupported_reason'] and j['history'] == [], j
" || fail "demo2 should not support self-tests: $ST2"
R=$(api POST "/api/v1/devices/$D2/selftests" '{"type": "short"}')
case "$R" in 409*"does not support device self-tests"*) ;; *) fail "POST on demo2: $R" ;; esac
rc=0
"$NVMOND_BIN" -c "$TMP/nvmond.conf" --listen "127.0.0.1:$PORT" selftest --device demo2 --extended \
	2> "$TMP/cli.err" || rc=$?
[ "$rc" = 1 ] && grep -q "does not support device self-tests" "$TMP/cli.err" ||
	fail "nvmond selftest on demo2: exit $rc, $(cat "$TMP/cli.err")"
R=$(api POST "/api/v1/devices/$D0/selftests" '{"type": "short", "nsid": 0}')
case "$R" in 400*) ;; *) fail "nsid 0 should be a 400: $R" ;; esac
R=$(api POST "/api/v1/devices/$D0/selftests" '{"type": "short", "nsid": 7}')
case "$R" in 400*"has no namespace 7"*) ;; *) fail "a namespace the drive lacks: $R" ;; esac
# One namespace (NSID 1): started, shown with it, and aborted by the operator.
R=$(api POST "/api/v1/devices/$D0/selftests" '{"type": "short", "nsid": 1}')
case "$R" in 202*'"nsid": 1'*|202*'"nsid":1'*) ;; *) fail "a test of namespace 1: $R" ;; esac
jq_py "$(http_get "/api/v1/devices/$D0/selftests")" "
assert j['running'] and j['running']['nsid'] == 1 and j['running']['type'] == 'short', j['running']
" || fail "namespace 1's test is not shown running"
R=$(api POST "/api/v1/devices/$D0/selftests/abort")
case "$R" in 200*) ;; *) fail "abort: $R" ;; esac
wait_for 10 sh -c "curl -fsS http://127.0.0.1:$PORT/api/v1/devices/$D0/selftests?limit=1 | grep -q '\"result_code\": *1'" ||
	fail "the abort is not in the history"
# Twice more, each abort right after its start: three short tests aborted in the
# same power-on hour read the same in the drive's log, and each is a result of
# its own, started through the API (issue 28 §1: the second and third were
# never recorded, and one aborted within a second of its start had origin null).
N0=$(jq_py "$(http_get "/api/v1/devices/$D0/selftests?limit=1000")" "print(len(j['history']))")
for k in 2 3; do
	R=$(api POST "/api/v1/devices/$D0/selftests" '{"type": "short"}')
	case "$R" in 202*) ;; *) fail "short test $k: $R" ;; esac
	R=$(api POST "/api/v1/devices/$D0/selftests/abort")
	case "$R" in 200*) ;; *) fail "abort $k: $R" ;; esac
done
aborts_stored() {
	jq_py "$(http_get "/api/v1/devices/$D0/selftests?limit=1000")" "
h = j['history']
sys.exit(0 if len(h) >= $N0 + 2 else 1)"
}
wait_for 10 aborts_stored || fail "the 2nd and 3rd abort are not both in the history:
$(http_get "/api/v1/devices/$D0/selftests?limit=4")"
jq_py "$(http_get "/api/v1/devices/$D0/selftests?limit=1000")" "
h = j['history']
assert len(h) == $N0 + 2, (len(h), $N0)
top = [(x['type'], x['result_code'], x['origin']) for x in h[:3]]
assert top == [('short', 1, 'api')] * 3, top
assert len({x['id'] for x in h[:3]}) == 3, h[:3]
" || fail "three aborted short tests, each once, origin api: $(http_get "/api/v1/devices/$D0/selftests?limit=4")"
jq_py "$(http_get "/api/v1/alerts")" "
assert not [a for a in j['active'] if a['rule'] == 'selftest_aborted'], j['active']
" || fail "the operator's abort raised selftest_aborted"
stop_daemon

# --- run 1: catch-up, a skip, a scheduled test that finds another running --
FIRST=$(q "SELECT coalesce(max(id), 0) FROM selftest_actions") # the demo year's and run 0's
MISSED=$(date -d '2 minutes ago' +%H:%M)
YESTERDAY_MS=$(($(date -d '1 day ago' +%s) * 1000 - 180000))
for d in "$D0" "$D1"; do
	q "INSERT INTO selftest_actions (device_id, ts_ms, kind, code, nsid, origin, reason)
	   VALUES ($d, $YESTERDAY_MS, 'start', 1, 4294967295, 'schedule', '')"
done
# Another process probes the 980 PRO: it holds that drive's probe lock.
: > "$LOCKS/probe-DEMO980PRO00002.lock"
# (its output away from ctest's pipe; killed with its child at the end)
flock "$LOCKS/probe-DEMO980PRO00002.lock" sleep 600 > /dev/null 2>&1 &
LOCKER=$!
unlock() { pkill -P "$LOCKER" 2>/dev/null || true; kill "$LOCKER" 2>/dev/null || true; }
trap 'unlock; cleanup' EXIT
wait_for 5 sh -c "! flock -n '$LOCKS/probe-DEMO980PRO00002.lock' true" || fail "the lock is not held"
SCHED=("[device \"DEMO950PRO00001\"]" "selftest_schedule = daily $MISSED short"
	"[device \"DEMO980PRO00002\"]" "selftest_schedule = daily $MISSED short")
conf "${SCHED[@]}"
start_daemon -c "$TMP/nvmond.conf"
wait_log_for "DEMO950PRO00001 \(demo0\): short self-test started \(catch-up\)" 20
wait_log_for "DEMO980PRO00002 \(demo1\): scheduled short self-test skipped: .*probe" 20
# Now an extended test at the next minute (leaving the reload time to land).
NEXT=$(date -d "+$(( 10#$(date +%S) > 50 ? 2 : 1 )) minutes" +%H:%M)
conf "[device \"DEMO950PRO00001\"]" "selftest_schedule = daily $MISSED short, daily $NEXT extended" \
	"[device \"DEMO980PRO00002\"]" "selftest_schedule = daily $MISSED short"
kill -HUP "$DAEMON_PID"
wait_log_for "configuration reloaded" 10
ST0=$(http_get "/api/v1/devices/$D0/selftests")
jq_py "$ST0" "
assert j['running'] and j['running']['type'] == 'short', j['running']
assert j['schedule'] == 'daily $MISSED short, daily $NEXT extended', j['schedule']
assert j['next'] and j['next']['type'] == 'extended', j['next']
" || fail "the 950 PRO's running test and next one: $ST0"
wait_log_for "DEMO950PRO00001 \(demo0\): scheduled extended self-test skipped: a short self-test is already running" 150
R=$(api POST "/api/v1/devices/$D1/selftests" '{"type": "short"}')
case "$R" in 409*"a probe is running on this drive in another nvmond process"*) ;; *) fail "a test while the 980 PRO's probe lock is held: $R" ;; esac
SK=$(http_get "/api/v1/devices/$D0/selftests")
jq_py "$SK" "
s = j['skips']
assert s and s[0]['type'] == 'extended' and s[0]['origin'] == 'schedule' and 'already running' in s[0]['reason'], s
" || fail "the skip in the API: $SK"
stop_daemon
unlock
# Each drive's actions in their order; the drives' catch-ups may come in either
# order (each drive's poll answers on its own, and a catch-up follows a sample).
ACTIONS=$(q "SELECT device_id, kind, code, origin FROM selftest_actions WHERE id > $FIRST AND ts_ms > $YESTERDAY_MS ORDER BY device_id = $D1, id")
EXPECT="$D0|start|1|catch-up
$D0|skip|2|schedule
$D1|skip|1|catch-up"
[ "$ACTIONS" = "$EXPECT" ] || fail "run 1's actions: $ACTIONS (expected: $EXPECT)"

# --- run 2: a restart runs and skips nothing again -------------------------
conf "${SCHED[@]}"
start_daemon -c "$TMP/nvmond.conf"
wait_polls 8
stop_daemon
AGAIN=$(q "SELECT count(*) FROM selftest_actions WHERE id > $FIRST AND ts_ms > $YESTERDAY_MS")
[ "$AGAIN" = 3 ] || fail "the restart started or skipped again: $(q 'SELECT * FROM selftest_actions')"
for serial in DEMO950PRO00001 DEMO980PRO00002; do
	[ "$(grep -c "$serial: the short self-test due at .* was missed while nvmond was down" "$DAEMON_LOG")" = 1 ] ||
		fail "$serial: not one catch-up: $(grep 'missed while' "$DAEMON_LOG")"
done
pass
