#!/usr/bin/env bash
# Scheduled probes: a calendar entry a minute from now runs on demo1 (trigger
# "schedule"); the same entry on demo0, whose write budget is used up, is
# skipped and the skip recorded with its reason. Env: NVMOND_BIN (ctest).
set -u
. "$(dirname "$0")/lib.sh"
need_tools curl python3

# The scheduled minute begins 14 s after the start (minute_soon, lib.sh).
minute_soon 14
probe_conf probe-schedule <<CONF
phase_duration = 1s
jitter = 0
[device "DEMO980PRO00002"]
probe_schedule = daily $AT rnd4k-q1
[device "DEMO950PRO00001"]
probe_schedule = daily $AT seq1m-q1
probe_budget_day = 1MB
[daemon]
# The runs are counted from zero: no demo year of past ones.
demo_history = no
CONF
probe_start

dev_id() {
	jq_py "$(http_get /api/v1/devices)" "print([d['id'] for d in j['devices'] if d['serial']=='$1'][0])"
}
D0=$(dev_id DEMO950PRO00001)
D1=$(dev_id DEMO980PRO00002)
for _ in $(seq 240); do
	L1=$(http_get "/api/v1/devices/$D1/probes")
	L0=$(http_get "/api/v1/devices/$D0/probes")
	if jq_py "$L1" "assert j['probes'] and j['probes'][0]['state'] == 'done'" 2>/dev/null &&
		jq_py "$L0" "assert j['probes']" 2>/dev/null; then
		break
	fi
	sleep 0.5
done
jq_py "$L1" "
p = j['probes']
assert len(p) == 1 and p[0]['trigger'] == 'schedule' and p[0]['preset'] == 'rnd4k-q1', p
assert p[0]['state'] == 'done', p
" || fail "scheduled probe on demo1 at $AT: $L1"
jq_py "$L0" "
p = j['probes']
assert len(p) == 1 and p[0]['state'] == 'skipped' and p[0]['trigger'] == 'schedule', p
assert 'budget' in p[0]['reason'] or 'warning temperature' in p[0]['reason'], p  # demo0 may be hot then
" || fail "skipped probe on demo0 at $AT: $L0"
grep -q "scheduled probe seq1m-q1 on demo0 skipped" "$DAEMON_LOG" || fail "no log line for the skip"
stop_daemon
pass
