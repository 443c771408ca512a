#!/usr/bin/env bash
# The cache-recovery study waits for real idle time (issue 13: "it pauses, and
# extends the interval, when foreground I/O makes the drive not idle"): with
# recovery_intervals = 5s,10s on demo1, the drive is made busy (the demo
# backend's test hook, by the probes' busy rule) for a while after the fill;
# the wait pauses (log), burst 1 runs after 5 s of idle net of the busy time,
# later by the pause, and the API gives each burst's idle and paused seconds.
# Env: NVMOND_BIN (ctest).
set -u
. "$(dirname "$0")/lib.sh"
need_tools curl python3

probe_conf recovery-busy <<CONF
recovery_intervals = 5s,10s
# demo1 (980 PRO, 24 GB cache) needs a budget for its 30 GB fill.
[device "DEMO980PRO00002"]
probe_budget_day = 1TB
probe_budget_month = 4TB
[daemon]
demo_history = no
CONF
export NVMOND_DEMO_BUSY=$TMP/busy
probe_start --log-level info
D=$(demo_id demo1)

out=$(api_post "/api/v1/devices/$D/probes" '{"preset":"sustained-write"}')
[ "${out%% *}" = 202 ] || fail "sustained-write: $out"
wait_probe "$(jq_py "${out#* }" "print(j['id'])")" "j['state'] == 'stopped'" 90 >/dev/null

out=$(api_post "/api/v1/devices/$D/probes" '{"preset":"cache-recovery"}')
[ "${out%% *}" = 202 ] || fail "cache-recovery: $out"
S=$(jq_py "${out#* }" "print(j['id'])")
# The fill ended: the drive turns busy (100 MB/s of foreground writes) …
wait_probe "$S" "j['state'] == 'done'" 90 >/dev/null
echo "demo1 20 100" > "$NVMOND_DEMO_BUSY"
wait_log_for "cache-recovery study $S: the drive is busy: the wait pauses" 10
T_BUSY=$(date +%s.%N)
# … for about 4 s (the study looks once a second), then idle again.
wait_for 10 python3 -c "import sys, time; sys.exit(time.time() < $T_BUSY + 4)"
: > "$NVMOND_DEMO_BUSY"
wait_log_for "cache-recovery study $S: the drive is idle again: the wait goes on" 10

j=$(wait_probe "$S" "j['recovery']['state'] not in ('running', 'waiting')" 90)
jq_py "$j" "
r = j['recovery']
pts = r['points']
assert len(pts) == 2, pts
# Each burst after its interval of idle time net of the busy period …
for p, want in zip(pts, (5, 10)):
    assert want - 0.05 <= p['idle_s'] < want + 1.5, pts
# … which paused the study (before burst 1, none after): 3 … 6 s at a 1 s resolution.
assert 3 <= pts[0]['paused_s'] <= 6.5, pts
assert pts[1]['paused_s'] == pts[0]['paused_s'], pts
assert r['paused_s'] == pts[0]['paused_s'], r
runs = j['series']['runs']
assert [x['state'] for x in runs] == ['done', 'done', 'done'], runs
" || fail "the bursts' idle and paused times: $j"
# The wall clock agrees: burst 1 started its idle time plus the pause after the fill.
python3 - "$(http_get "/api/v1/devices/$D/probes")" "$j" <<'PY' || fail "burst 1 was put off by the pause"
import json, sys
runs = {p['id']: p for p in json.loads(sys.argv[1])['probes']}
st = json.loads(sys.argv[2])
fill, b1 = st['series']['runs'][0]['id'], st['series']['runs'][1]['id']
pt = st['recovery']['points'][0]
from datetime import datetime
ended = datetime.fromisoformat(runs[fill]['ended'].replace('Z', '+00:00')).timestamp()
wall = runs[b1]['started_ms'] / 1000 - ended
assert abs(wall - (pt['idle_s'] + pt['paused_s'])) < 1.5, (wall, pt)
PY
grep -Eq "cache-recovery study $S: burst 1 of 2 \(probe [0-9]+\) after 5 s idle since the cliff, [3-6] s paused" "$DAEMON_LOG" ||
	fail "the log says burst 1's idle and pause: $(grep "study $S" "$DAEMON_LOG")"
stop_daemon
pass
