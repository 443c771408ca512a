#!/usr/bin/env bash
# Repeated probe runs and the spec check on the demo drives (issue 13): a
# series through the API and through `nvmond probe --repeat`, its linked runs
# and summary, measured ÷ rated, a cancel in the cooldown and one during a run.
# Env: NVMOND_BIN (ctest).
set -u
. "$(dirname "$0")/lib.sh"
need_tools curl python3

probe_conf repeat <<CONF
phase_duration = 1s
# demo2 (970 EVO Plus 1TB, rated 3,500 / 3,300 MB/s) rated far above what it does:
# the best of a series is below 80 % of it.
[device "DEMO970EVO00003"]
probe_file_size = 8GiB
rated_read_mbps = 9000
[daemon]
demo_history = no
demo_drives = 3
CONF
probe_start --log-level info

D1=$(demo_id demo1)
D2=$(demo_id demo2)


# Validation.
out=$(api_post "/api/v1/devices/$D1/probes" '{"preset":"seq1m-q8","repeat":11}')
[ "${out%% *}" = 400 ] || fail "repeat 11: $out"
out=$(api_post "/api/v1/devices/$D1/probes" '{"preset":"seq1m-q8","repeat":3,"cooldown":"soon"}')
[ "${out%% *}" = 400 ] || fail "bad cooldown: $out"

# A series of 3 on demo1 (980 PRO 1TB, rated 7,000 / 5,000 MB/s), 1 s apart.
out=$(api_post "/api/v1/devices/$D1/probes" '{"preset":"seq1m-q8","repeat":3,"cooldown":"1s"}')
[ "${out%% *}" = 202 ] || fail "POST repeat 3: $out"
S=$(jq_py "${out#* }" "print(j['series']['id'])")
[ "$(jq_py "${out#* }" "print(j['id'], j['series']['of'], j['series']['cooldown_ms'])")" = "$S 3 1000" ] ||
	fail "the answer names the series: $out"
# The drive is the series' until it ends, cooldown included.
j=$(wait_probe "$S" "j['state'] == 'done'" 60)
out=$(api_post "/api/v1/devices/$D1/probes" '{"preset":"rnd4k-q1"}')
[ "${out%% *}" = 409 ] || fail "a probe during the series: $out"
j=$(wait_probe "$S" "not j['series']['running'] and j['series']['measured'] == 3" 60)
jq_py "$j" "
s = j['series']
assert s['id'] == $S and s['of'] == 3 and s['index'] == 1 and s['complete'], s
assert [r['index'] for r in s['runs']] == [1, 2, 3], s['runs']
assert all(r['state'] == 'done' for r in s['runs']), s['runs']
ph = {(p['name'], p['dir']): p for p in s['phases']}
for k in (('read', 'read'), ('write', 'write')):
    p = ph[k]
    assert len(p['mb_per_s']) == 3, p
    v = sorted(p['mb_per_s'])
    assert p['best_mb_per_s'] == v[2] and p['median_mb_per_s'] == v[1], p
    assert p['min_mb_per_s'] == v[0] and abs(p['spread'] - (v[2] - v[0]) / v[1]) < 1e-9, p
sp = j['spec']
assert sp['source'] == 'builtin' and sp['basis'] == 'best of the series', sp
assert sp['read']['rated_mb_per_s'] == 7000 and sp['write']['rated_mb_per_s'] == 5000, sp
assert sp['read']['measured_mb_per_s'] == ph[('read', 'read')]['best_mb_per_s'], sp
assert sp['read']['text'].endswith('% of 7,000 rated') and ' MB/s read = ' in sp['read']['text'], sp
assert 90 <= sp['read']['percent'] <= 110 and not sp['below'], sp
" || fail "series summary: $j"
# Every run of it shows the same series.
R3=$(jq_py "$j" "print(j['series']['runs'][2]['id'])")
jq_py "$(http_get "/api/v1/probes/$R3")" "assert j['series']['index'] == 3 and j['series']['id'] == $S" ||
	fail "run 3 is not linked"
# A single run has no series, and its spec is this run's.
out=$(api_post "/api/v1/devices/$D1/probes" '{"preset":"seq1m-q8"}')
[ "${out%% *}" = 202 ] || fail "single run after the series: $out"
one=$(jq_py "${out#* }" "print(j['id'])")
j=$(wait_probe "$one" "j['state'] == 'done'" 60)
jq_py "$j" "assert j['series'] is None and j['spec']['basis'] == 'this run', j['spec']" ||
	fail "single run: $j"

# Below the rating: demo2 with rated_read_mbps = 9000, a series of 2.
out=$(api_post "/api/v1/devices/$D2/probes" '{"preset":"seq1m-q8","repeat":2,"cooldown":"200ms"}')
[ "${out%% *}" = 202 ] || fail "POST demo2: $out"
S2=$(jq_py "${out#* }" "print(j['id'])")
j=$(wait_probe "$S2" "not j['series']['running'] and j['series']['measured'] == 2" 60)
jq_py "$j" "
sp = j['spec']
assert sp['source'] == 'config' and sp['read']['rated_mb_per_s'] == 9000, sp
assert sp['write']['rated_mb_per_s'] == 3300, sp   # the table's, not configured
assert sp['below'] and 'below 80 % of the rating' in sp['message'], sp
assert 'link ' in sp['message'] and ('°C' in sp['message'] or 'temperature unknown' in sp['message']), sp
assert any('below 80 %' in n for n in j['notes']), j['notes']
" || fail "below the rating: $j"
# … and the below_rated rule fired (info), naming the link and the temperature.
for _ in $(seq 100); do
	al=$(http_get /api/v1/alerts)
	jq_py "$al" "sys.exit(0 if [a for a in j['active'] if a['rule'] == 'below_rated'] else 1)" && break
	sleep 0.1
done
jq_py "$al" "
a = [a for a in j['active'] if a['rule'] == 'below_rated']
assert len(a) == 1 and a[0]['device_id'] == $D2 and a[0]['severity'] == 'info', a
assert 'link PCIe' in a[0]['message'] and 'rated' in a[0]['message'], a
assert not [a for a in j['active'] if a['rule'] == 'below_rated' and a['device_id'] == $D1], j
" || fail "below_rated alert: $al"

# A cancel in the cooldown ends the series and says so.
out=$(api_post "/api/v1/devices/$D2/probes" '{"preset":"seq1m-q8","repeat":3,"cooldown":"1m"}')
[ "${out%% *}" = 202 ] || fail "POST demo2 (cooldown 1m): $out"
S3=$(jq_py "${out#* }" "print(j['id'])")
wait_probe "$S3" "j['state'] == 'done'" 60 > /dev/null
out=$(api_post "/api/v1/probes/$S3/cancel" '')
[ "${out%% *}" = 202 ] || fail "cancel in the cooldown: $out"
j=$(wait_probe "$S3" "not j['series']['running'] and len(j['series']['runs']) == 2" 60)
jq_py "$j" "
s = j['series']
assert s['runs'][1]['state'] == 'skipped' and 'during the cooldown' in s['runs'][1]['reason'], s
assert not s['complete'] and s['measured'] == 1, s
assert s['note'].startswith('the series ended after 1 of 3 runs: run 2 skipped'), s['note']
" || fail "cancel in the cooldown: $j"
# The drive is free again at once.
out=$(api_post "/api/v1/devices/$D2/probes" '{"preset":"rnd4k-q1"}')
[ "${out%% *}" = 202 ] || fail "demo2 after the cancelled series: $out"
wait_probe "$(jq_py "${out#* }" "print(j['id'])")" "j['state'] == 'done'" 60 > /dev/null

# A cancel during a run of a series: that run is aborted and the series ends.
# A run lasts 2 s here; on a loaded machine run 2 may end between the read that
# saw it running and the cancel (409, it is done): then run 3 is the one cancelled.
out=$(api_post "/api/v1/devices/$D1/probes" '{"preset":"seq1m-q8","repeat":3,"cooldown":"200ms"}')
[ "${out%% *}" = 202 ] || fail "POST demo1 again: $out"
S4=$(jq_py "${out#* }" "print(j['id'])")
cancelled=
for k in 2 3; do
	j=$(wait_probe "$S4" "len(j['series']['runs']) >= $k and j['series']['runs'][$k - 1]['state'] == 'running'" 60)
	R=$(jq_py "$j" "print(j['series']['runs'][$k - 1]['id'])")
	out=$(api_post "/api/v1/probes/$R/cancel" '')
	[ "${out%% *}" = 202 ] && { cancelled=$k; break; }
	[ "${out%% *}" = 409 ] && [ "$k" = 2 ] || fail "cancel run $k: $out"
	echo "run 2 ended before its cancel (${out%% *}): cancelling run 3"
done
j=$(wait_probe "$S4" "not j['series']['running'] and j['series']['runs'][$cancelled - 1]['state'] != 'running'" 60)
jq_py "$j" "
s = j['series']
assert len(s['runs']) == $cancelled and s['runs'][$cancelled - 1]['state'] == 'aborted', s
assert 'cancelled' in s['runs'][$cancelled - 1]['reason'] and not s['complete'], s
assert 'run $cancelled aborted' in s['note'], s
" || fail "cancel during a run: $j"
out=$(api_post "/api/v1/devices/$D1/probes" '{"preset":"rnd4k-q1"}')
[ "${out%% *}" = 202 ] || fail "demo1 after the cancelled series: $out"
wait_probe "$(jq_py "${out#* }" "print(j['id'])")" "j['state'] == 'done'" 60 > /dev/null

# nvmond probe --repeat on the same database, while the daemon runs.
"$NVMOND_BIN" --demo -c "$TMP/nvmond.conf" --db "$DB" probe --device demo1 --preset seq1m-q8 \
	--repeat 3 --cooldown 200ms --json > "$TMP/cli.json" 2> "$TMP/cli.err" ||
	fail "nvmond probe --repeat: $(cat "$TMP/cli.err")"
jq_py "$(cat "$TMP/cli.json")" "
s = j['series']
assert s['of'] == 3 and s['measured'] == 3 and s['complete'] and s['index'] == 3, s
assert [r['index'] for r in s['runs']] == [1, 2, 3] and j['trigger'] == 'cli', s
assert j['spec']['read']['rated_mb_per_s'] == 7000 and j['spec']['write']['rated_mb_per_s'] == 5000
" || fail "CLI series: $(cat "$TMP/cli.json")"
"$NVMOND_BIN" --demo -c "$TMP/nvmond.conf" --db "$DB" probe --device demo1 --preset seq1m-q8 \
	--repeat 2 --cooldown 100ms > "$TMP/cli.txt" 2> "$TMP/cli.err" ||
	fail "nvmond probe --repeat (table): $(cat "$TMP/cli.err")"
grep -q '^run 2 of 2: probe [0-9]* done' "$TMP/cli.txt" || fail "CLI table: $(cat "$TMP/cli.txt")"
grep -q '^series [0-9]*: run 2 of 2, 2 measured' "$TMP/cli.txt" || fail "CLI table: $(cat "$TMP/cli.txt")"
grep -Eq '^spec \(best of the series\): [0-9,]+ MB/s read = [0-9]+ % of 7,000 rated' "$TMP/cli.txt" ||
	fail "CLI spec line: $(cat "$TMP/cli.txt")"
expect_exit 2 "$NVMOND_BIN" --demo -c "$TMP/nvmond.conf" --db "$DB" probe --device demo0 \
	--preset seq1m-q8 --repeat 0
expect_exit 2 "$NVMOND_BIN" --demo -c "$TMP/nvmond.conf" --db "$DB" probe --device demo0 \
	--preset seq1m-q8 --cooldown 1s

stop_daemon
pass
