#!/usr/bin/env bash
# Repeats in schedules (issue 13: "any preset can run repeat = N times with
# cooldown between runs"): "daily HH:MM seq1m-q1 x3 cooldown 1s" on demo1 runs
# one series of three runs (one series_id, its best / median / spread); the
# same on demo2, made busy (the demo backend's test hook) after its first run,
# skips run 2 at the busy gate of scheduled probes and the series says so.
# Env: NVMOND_BIN (ctest).
set -u
. "$(dirname "$0")/lib.sh"
need_tools curl python3

# A bad repeat stops the daemon at start, naming the key.
printf '[device "DEMO980PRO00002"]\nprobe_schedule = daily 03:00 seq1m-q1 x11\n' > "$TMP/bad.conf"
expect_exit 2 "$NVMOND_BIN" --demo -c "$TMP/bad.conf" --db "$TMP/bad.db" --listen "127.0.0.1:$(free_port)"
grep -q "probe_schedule.*x11" "$LAST_STDERR" || fail "the error names the entry: $(cat "$LAST_STDERR")"

# The scheduled minute begins 14 s after the start (minute_soon, lib.sh).
minute_soon 14
probe_conf probe-schedule-repeat <<CONF
phase_duration = 1s
jitter = 0
# demo0 (950 PRO) reaches its warning temperature every five minutes: demo1 and demo2.
[device "DEMO980PRO00002"]
probe_schedule = daily $AT seq1m-q1 x3 cooldown 1s
probe_budget_day = 1TB
probe_budget_month = 4TB
[device "DEMO970EVO00003"]
probe_schedule = daily $AT seq1m-q1 x3 cooldown 4s
probe_budget_day = 1TB
probe_budget_month = 4TB
[daemon]
demo_history = no
demo_drives = 3
CONF
export NVMOND_DEMO_BUSY=$TMP/busy
probe_start --log-level info

D1=$(demo_id demo1)
D2=$(demo_id demo2)
probes() { http_get "/api/v1/devices/$1/probes"; }
# demo2: busy from the end of its first run on, as foreground I/O would make it.
for _ in $(seq 1500); do
	jq_py "$(probes "$D2")" "assert any(p['state'] == 'done' for p in j['probes'])" 2>/dev/null && break
	sleep 0.1
done
echo "demo2 100000 500" > "$NVMOND_DEMO_BUSY"

series_of() { # DEVICE_ID: the detail of its first scheduled run, once the series ended
	local first
	first=$(jq_py "$(probes "$1")" "print(min(p['id'] for p in j['probes']))")
	wait_probe "$first" "j['series'] and not j['series']['running'] and (j['series']['complete'] or j['series']['note'])" 60
}
j=$(series_of "$D1")
jq_py "$j" "
s = j['series']
assert j['trigger'] == 'schedule' and j['preset'] == 'seq1m-q1', j
assert s['id'] == j['id'] and s['of'] == 3 and s['measured'] == 3 and s['complete'], s
assert [r['index'] for r in s['runs']] == [1, 2, 3] and all(r['state'] == 'done' for r in s['runs']), s
ph = s['phases']
assert ph and all(len(p['mb_per_s']) == 3 and p['best_mb_per_s'] == max(p['mb_per_s']) for p in ph), ph
assert all(p['min_mb_per_s'] <= p['median_mb_per_s'] <= p['max_mb_per_s'] for p in ph), ph
" || fail "demo1's scheduled series: $j"
SERIES_RUNS=$(jq_py "$j" "print(sorted(r['id'] for r in j['series']['runs']))")
jq_py "$(probes "$D1")" "
p = j['probes']
assert sorted(x['id'] for x in p) == $SERIES_RUNS, p   # one series, no stray run
assert all(x['trigger'] == 'schedule' for x in p), p
" || fail "demo1's runs: $(probes "$D1")"

j=$(series_of "$D2")
jq_py "$j" "
s = j['series']
assert s['of'] == 3 and s['measured'] == 1 and not s['complete'], s
assert [r['state'] for r in s['runs']] == ['done', 'skipped'], s
assert 'busy' in s['runs'][1]['reason'], s
assert 'run 2 skipped' in s['note'] and 'busy' in s['note'], s
" || fail "demo2's series, run 2 refused at the busy gate: $j"
wait_log_for "probe series [0-9]+: run 2 of 3 not started: drive busy"
stop_daemon
pass
