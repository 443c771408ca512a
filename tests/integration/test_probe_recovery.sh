#!/usr/bin/env bash
# The write-cache size and the cache-recovery study on the demo drives (issue
# 13): refused before a sustained-write found a cliff; the cliff's bytes as the
# drive's write cache (API); the study through the API with second-scale
# intervals: the fill, a burst per interval (each its own run of the series),
# its points and verdict; a bad interval list stops the daemon; cancel stops it.
# Env: NVMOND_BIN (ctest).
set -u
. "$(dirname "$0")/lib.sh"
need_tools curl python3

# A bad list of intervals stops the daemon at start.
cat > "$TMP/bad.conf" <<CONF
[probes]
recovery_intervals = 5m,2m
CONF
expect_exit 2 "$NVMOND_BIN" --demo -c "$TMP/bad.conf" --db "$TMP/bad.db" --listen "127.0.0.1:$(free_port)"
grep -q "recovery_intervals" "$LAST_STDERR" || fail "the error names the key: $(cat "$LAST_STDERR")"

probe_conf recovery <<CONF
recovery_intervals = 2s,4s,8s
# demo1 (980 PRO, 24 GB cache, cool: demo0 reaches its warning temperature every
# five minutes, which rightly aborts a burst) needs a budget for its 30 GB fill.
[device "DEMO980PRO00002"]
probe_budget_day = 1TB
probe_budget_month = 4TB
[daemon]
demo_history = no
CONF
probe_start --log-level info

D0=$(demo_id demo1)

# No cache size yet: refused, saying why.
out=$(api_post "/api/v1/devices/$D0/probes" '{"preset":"cache-recovery"}')
[ "${out%% *}" = 409 ] || fail "cache-recovery before any cliff: $out"
case "$out" in *"run sustained-write first"*) ;; *) fail "the refusal says why: $out" ;; esac
jq_py "$(http_get "/api/v1/devices/$D0/probes")" "assert j['write_cache'] == {'bytes': None, 'history': []}, j['write_cache']" ||
	fail "no write cache measured yet"
out=$(api_post "/api/v1/devices/$D0/probes" '{"preset":"cache-recovery","repeat":2}')
[ "${out%% *}" = 400 ] || fail "a study with repeat: $out"

# sustained-write finds demo1's 24 GB cache: the drive's write cache.
out=$(api_post "/api/v1/devices/$D0/probes" '{"preset":"sustained-write"}')
[ "${out%% *}" = 202 ] || fail "sustained-write: $out"
SW=$(jq_py "${out#* }" "print(j['id'])")
j=$(wait_probe "$SW" "j['state'] == 'stopped'" 90)
CLIFF=$(jq_py "$j" "print([e for e in j['phases'][0]['events'] if e['kind']=='cliff'][0]['bytes_before'])")
jq_py "$(http_get "/api/v1/devices/$D0/probes")" "
c = j['write_cache']
# 24 GB, found a little after it fills (each demo run's rates vary by up to 5 %)
assert c['bytes'] == $CLIFF and 22e9 < c['bytes'] <= 26e9, c
assert [h['run_id'] for h in c['history']] == [$SW], c
h = c['history'][0]
assert h['mb_s_before'] > 2 * h['mb_s_after'] > 0, c
" || fail "the cliff's bytes are the write cache"

# The study: its schedule in the answer, then the fill and three bursts.
out=$(api_post "/api/v1/devices/$D0/probes" '{"preset":"cache-recovery"}')
[ "${out%% *}" = 202 ] || fail "cache-recovery: $out"
S=$(jq_py "${out#* }" "print(j['id'])")
jq_py "${out#* }" "
s = j['study']
assert s['id'] == $S and s['of'] == 4 and s['intervals_s'] == [2, 4, 8], s
# a tenth of the cache (2.4 GB), but never more than the probe area (1 GiB here)
assert s['cache_bytes'] == $CLIFF and s['burst_bytes'] == 1 << 30, s
assert $CLIFF < s['fill_bytes'] <= $CLIFF * 1.25 + (1 << 20), s
" || fail "the study's schedule: $out"
# The drive is the study's while it waits.
out=$(api_post "/api/v1/devices/$D0/probes" '{"preset":"rnd4k-q1"}')
[ "${out%% *}" = 409 ] || fail "a probe during the study: $out"
j=$(wait_probe "$S" "j['recovery']['state'] not in ('running', 'waiting')" 90)
jq_py "$j" "
r = j['recovery']
assert r['series_id'] == $S, r
pts = r['points']
assert len(pts) == 3, pts
for p, want in zip(pts, (2, 4, 8)):
    assert want - 0.05 <= p['idle_s'] < want + 1.5, pts   # each burst after its idle time (ms timers)
    assert abs(p['pct'] - p['mb_s'] / r['pre_cliff_mb_s'] * 100) < 1e-6, p
# demo1 refills its cache in an hour: seconds free little, the bursts run native.
assert all(p['pct'] < 95 for p in pts), pts
assert r['state'] == 'not_recovered' and r['verdict'].startswith('not within 8 s'), r
runs = j['series']['runs']
assert [x['index'] for x in runs] == [1, 2, 3, 4] and all(x['state'] == 'done' for x in runs), runs
assert 'spec' not in j or j['spec'] is None or not j['spec'].get('below'), j.get('spec')
" || fail "the study's points and verdict: $j"
# Each burst was a run of its own, charged to the budget.
jq_py "$(http_get "/api/v1/devices/$D0/probes")" "
b = [r for r in j['probes'] if r['preset'] == 'cache-recovery']
assert len(b) == 4, b
assert sorted(r['bytes_charged'] for r in b)[:3] == [1 << 30] * 3, b
" || fail "the bursts are runs, charged"

# Cancel during the wait stops the study: the burst that would come is recorded skipped.
out=$(api_post "/api/v1/devices/$D0/probes" '{"preset":"cache-recovery"}')
[ "${out%% *}" = 202 ] || fail "second study: $out"
S2=$(jq_py "${out#* }" "print(j['id'])")
wait_probe "$S2" "j['state'] == 'done'" 90 >/dev/null
out=$(api_post "/api/v1/probes/$S2/cancel" '')
[ "${out%% *}" = 202 ] || fail "cancel the study: $out"
j=$(wait_probe "$S2" "j['recovery']['state'] == 'ended'" 90)
jq_py "$j" "
runs = j['series']['runs']
assert runs[-1]['state'] == 'skipped' and 'cancel' in runs[-1]['reason'], runs
" || fail "a cancelled study: $j"
out=$(api_post "/api/v1/devices/$D0/probes" '{"preset":"rnd4k-q1"}')
[ "${out%% *}" = 202 ] || fail "the drive is free after the cancel: $out"
stop_daemon

# The CLI: nvmond probe --preset cache-recovery shows the schedule, a line per
# burst as it comes, then the verdict. demo1 (980 PRO, 24 GB cache) needs a
# budget for its 30 GB fill.
cli_conf() { # INTERVALS -> a config file
	printf '[probes]\nlock_dir = %s\nrecovery_intervals = %s\n[device "DEMO980PRO00002"]\nprobe_budget_day = 1TB\nprobe_budget_month = 4TB\n' \
		"$TMP/locks" "$1" > "$TMP/cli-$1.conf"
	echo "$TMP/cli-$1.conf"
}
CONF=$(cli_conf 1s,2s)
CDB=$TMP/cli.db
cli() { "$NVMOND_BIN" --demo -c "$CONF" --db "$CDB" probe --device demo1 "$@"; }
expect_exit 1 cli --preset cache-recovery
grep -q "run sustained-write first" "$LAST_STDERR" || fail "CLI refusal: $(cat "$LAST_STDERR")"
expect_exit 2 cli --preset cache-recovery --repeat 2
cli --preset sustained-write > "$TMP/sw.out" 2>&1 || fail "CLI sustained-write: $(cat "$TMP/sw.out")"
cli --preset cache-recovery > "$TMP/study.out" 2>"$TMP/study.err" || fail "CLI study: $(cat "$TMP/study.out" "$TMP/study.err")"
python3 - "$TMP/study.out" <<'PY' || fail "the CLI study's lines: $(cat "$TMP/study.out")"
import re, sys
lines = open(sys.argv[1]).read().splitlines()
assert lines[0].startswith('cache-recovery: write cache 2'), lines
assert re.match(r'  fill: up to \d+\.\d GB, to the cliff$', lines[1]), lines
assert re.match(r'  burst 1: 1\.1 GB after 1 s idle$', lines[2]), lines
assert re.match(r'  burst 2: 1\.1 GB after 2 s idle$', lines[3]), lines
assert lines[4] == '  until a burst runs at 95 % of the rate before the cliff', lines
assert re.match(r'fill: probe \d+, ', lines[5]), lines
for k, want in ((6, 1), (7, 2)):
    m = re.match(r'burst %d of 2: probe \d+ after (\d+) s idle: (\d+) MB/s = (\d+) %%$' % (k - 5), lines[k])
    assert m and want <= int(m.group(1)) <= want + 1 and int(m.group(3)) < 95, lines
assert lines[8].startswith('not within 2 s (best burst '), lines
assert len(lines) == 9, lines
PY

# --json: the schedule and the lines on stderr, the study on stdout; a signal
# while it waits ends it, the burst to come recorded as skipped.
CONF=$(cli_conf 60s)
"$NVMOND_BIN" --demo -c "$CONF" --db "$CDB" probe --device demo1 --preset cache-recovery --json \
	> "$TMP/int.out" 2>"$TMP/int.err" &
CLI_PID=$!
for _ in $(seq 600); do
	grep -q '^fill: probe' "$TMP/int.err" && break
	sleep 0.1
done
grep -q '^fill: probe' "$TMP/int.err" || fail "the fill's line: $(cat "$TMP/int.err")"
kill -INT "$CLI_PID"
rc=0; wait "$CLI_PID" || rc=$?
[ "$rc" = 1 ] || fail "Ctrl-C: exit $rc, want 1: $(cat "$TMP/int.err")"
jq_py "$(cat "$TMP/int.out")" "
r = j['recovery']
assert r['state'] == 'ended' and r['points'] == [], r
runs = j['series']['runs']
assert [x['state'] for x in runs] == ['done', 'skipped'] and 'signal' in runs[1]['reason'], runs
" || fail "the interrupted study: $(cat "$TMP/int.out")"
pass
