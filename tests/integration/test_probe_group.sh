#!/usr/bin/env bash
# Group runs on the demo drives (issue 13, several drives at once): solo runs,
# then demo1 and demo2 probed together through the API (linked runs, phases
# started within 10 ms, each drive about 75 % of its own solo run, the total
# about 1.5x one drive), the refusal of the whole group when one drive is
# refused, a cancel that stops every member, and `nvmond probe --device A
# --device B`.
# Env: NVMOND_BIN (ctest).
set -u
. "$(dirname "$0")/lib.sh"
need_tools curl python3

probe_conf group <<CONF
phase_duration = 1s
sustained_every = 0
[daemon]
demo_history = no
demo_drives = 3
CONF
probe_start --log-level info

D1=$(demo_id demo1)
D2=$(demo_id demo2)

runs_of() { # device id -> number of its runs
	jq_py "$(http_get "/api/v1/devices/$1/probes")" "print(len(j['probes']))"
}

# Validation: the token, the body.
code=$(curl -sS -o /dev/null -w '%{http_code}' -d '{}' "$URL/api/v1/probes")
[ "$code" = 401 ] || fail "no token: $code"
out=$(api_post /api/v1/probes "{\"preset\":\"seq1m-q8\",\"devices\":[$D1]}")
[ "${out%% *}" = 400 ] || fail "one drive: $out"
out=$(api_post /api/v1/probes "{\"preset\":\"seq1m-q8\",\"devices\":[$D1,$D1]}")
[ "${out%% *}" = 400 ] || fail "a drive twice: $out"
out=$(api_post /api/v1/probes "{\"preset\":\"cache-recovery\",\"devices\":[$D1,$D2]}")
[ "${out%% *}" = 400 ] || fail "a study in a group: $out"
out=$(api_post /api/v1/probes "{\"preset\":\"seq1m-q8\",\"devices\":[$D1,999]}")
[ "${out%% *}" = 404 ] || fail "no such drive: $out"
[ "$(runs_of "$D1")" = 0 ] || fail "a refused group started a run"

# Each drive alone first: the group compares with these.
for d in "$D1" "$D2"; do
	out=$(api_post "/api/v1/devices/$d/probes" '{"preset":"seq1m-q8"}')
	[ "${out%% *}" = 202 ] || fail "solo on $d: $out"
	wait_probe "$(jq_py "${out#* }" "print(j['id'])")" "j['state'] == 'done'" 60 > /dev/null
done

# Together.
out=$(api_post /api/v1/probes "{\"preset\":\"seq1m-q8\",\"devices\":[$D2,$D1]}")
[ "${out%% *}" = 202 ] || fail "POST group: $out"
G=$(jq_py "${out#* }" "print(j['group_id'])")
jq_py "${out#* }" "
r = j['runs']
assert [x['device_id'] for x in r] == [$D2, $D1] and j['preset'] == 'seq1m-q8', j
assert $G in [x['id'] for x in r] and $G == min(x['id'] for x in r), j
" || fail "the answer: $out"
M2=$(jq_py "${out#* }" "print(j['runs'][0]['id'])")
j=$(wait_probe "$M2" "j['group'] and all(m['state'] != 'running' for m in j['group']['members'])" 60)
jq_py "$j" "
g = j['group']
assert g['id'] == $G and len(g['members']) == 2, g
assert sorted(m['device'] for m in g['members']) == ['demo1', 'demo2'], g
for m in g['members']:
    assert m['state'] == 'done' and m['solo_run_id'], m
    assert m['skew_ms'] is not None and m['skew_ms'] < 10, m
    for p in m['phases']:
        # the model: two drives share 1.5x one drive's bandwidth (each 75 %),
        # each run +-5 % of its own
        assert 0.65 <= p['ratio'] <= 0.85, (m['device'], p)
assert g['skew_ms'] < 10, g
agg = {a['name']: a for a in g['aggregate']}
assert set(agg) == {'read', 'write'}, agg
for a in agg.values():
    assert a['drives'] == 2, a
    tot = sum(p['mb_s'] for m in g['members'] for p in m['phases'] if p['name'] == a['name'])
    assert abs(a['mb_s'] - tot) < 1e-6, a
    assert 'each at ' in a['text'] and '% of solo, together ' in a['text'] and '× one drive' in a['text'], a
assert g['text'].startswith('read: each at '), g['text']
" || fail "the group's result: $j"
# Every member shows the group; a solo run shows none.
M1=$(jq_py "$j" "print([m['run_id'] for m in j['group']['members'] if m['device'] == 'demo1'][0])")
jq_py "$(http_get "/api/v1/probes/$M1")" "assert j['group']['id'] == $G" || fail "member $M1"
S1=$(jq_py "$j" "print([m['solo_run_id'] for m in j['group']['members'] if m['device'] == 'demo1'][0])")
jq_py "$(http_get "/api/v1/probes/$S1")" "assert j['group'] is None" || fail "solo run $S1"

# One drive refused (a probe runs on demo2): the whole group is, before anything starts.
out=$(api_post "/api/v1/devices/$D2/probes" '{"preset":"sustained-write"}')
[ "${out%% *}" = 202 ] || fail "sustained-write on demo2: $out"
BUSY=$(jq_py "${out#* }" "print(j['id'])")
n1=$(runs_of "$D1")
out=$(api_post /api/v1/probes "{\"preset\":\"seq1m-q8\",\"devices\":[$D1,$D2]}")
[ "${out%% *}" = 409 ] || fail "a group with a busy drive: $out"
jq_py "${out#* }" "
assert j['device_id'] == $D2, j
assert 'nothing started' in j['error'] and 'demo2' in j['error'] and 'is running on it' in j['error'], j
" || fail "the refusal names the drive: $out"
[ "$(runs_of "$D1")" = "$n1" ] || fail "demo1 started a run of a refused group"
# … and demo1's lock was let go: it probes alone at once.
out=$(api_post "/api/v1/devices/$D1/probes" '{"preset":"rnd4k-q1"}')
[ "${out%% *}" = 202 ] || fail "demo1 after the refused group: $out"
wait_probe "$(jq_py "${out#* }" "print(j['id'])")" "j['state'] == 'done'" 60 > /dev/null
out=$(api_post "/api/v1/probes/$BUSY/cancel" '')
[ "${out%% *}" = 202 ] || fail "cancel sustained-write: $out"
wait_probe "$BUSY" "j['state'] != 'running'" 60 > /dev/null

# Cancel one member: every member stops, and the group says so.
out=$(api_post /api/v1/probes "{\"preset\":\"sustained-write\",\"devices\":[$D1,$D2]}")
[ "${out%% *}" = 202 ] || fail "POST group (sustained-write): $out"
G2=$(jq_py "${out#* }" "print(j['group_id'])")
LAST=$(jq_py "${out#* }" "print(j['runs'][1]['id'])")
wait_probe "$LAST" "j['state'] == 'running' and 'progress' in j" 60 > /dev/null
# Both drives are the group's while it runs (a sustained-write runs until its
# cliff holds: seconds on the demo drives, time enough under any load).
for d in "$D1" "$D2"; do
	out=$(api_post "/api/v1/devices/$d/probes" '{"preset":"rnd4k-q1"}')
	[ "${out%% *}" = 409 ] || fail "a probe on $d during the group: $out"
done
out=$(api_post "/api/v1/probes/$LAST/cancel" '')
[ "${out%% *}" = 202 ] || fail "cancel a member: $out"
j=$(wait_probe "$G2" "all(m['state'] != 'running' for m in j['group']['members'])" 60)
jq_py "$j" "
g = j['group']
assert all(m['state'] == 'aborted' and 'group was cancelled' in m['reason'] for m in g['members']), g
assert 'demo1 aborted' in g['text'] and 'demo2 aborted' in g['text'], g['text']
" || fail "cancel of the group: $j"
# Cancel by the group's id (its first member) stops the others too.
out=$(api_post /api/v1/probes "{\"preset\":\"sustained-write\",\"devices\":[$D1,$D2]}")
[ "${out%% *}" = 202 ] || fail "POST group again: $out"
G3=$(jq_py "${out#* }" "print(j['group_id'])")
wait_probe "$G3" "j['state'] == 'running' and 'progress' in j" 60 > /dev/null
out=$(api_post "/api/v1/probes/$G3/cancel" '')
[ "${out%% *}" = 202 ] || fail "cancel the group by id: $out"
wait_probe "$G3" "all(m['state'] == 'aborted' for m in j['group']['members'])" 60 > /dev/null

# nvmond probe --device A --device B on the same database, while the daemon runs.
"$NVMOND_BIN" --demo -c "$TMP/nvmond.conf" --db "$DB" probe --device demo1 --device demo2 \
	--preset seq1m-q8 > "$TMP/cli.txt" 2> "$TMP/cli.err" ||
	fail "nvmond probe --device --device: $(cat "$TMP/cli.err") $(cat "$TMP/cli.txt")"
grep -Eq '^group [0-9]+: 2 drives together, phases started within [0-9.]+ ms' "$TMP/cli.txt" ||
	fail "CLI group line: $(cat "$TMP/cli.txt")"
grep -Eq '^  demo1 +probe [0-9]+ done  read [0-9]+ MB/s \([0-9]+ % of solo\)' "$TMP/cli.txt" ||
	fail "CLI demo1 line: $(cat "$TMP/cli.txt")"
grep -Eq '^  total read +[0-9]+ MB/s: each at [0-9–]+ % of solo, together [0-9]+ MB/s = 1\.[0-9]+× one drive' \
	"$TMP/cli.txt" || fail "CLI total line: $(cat "$TMP/cli.txt")"
"$NVMOND_BIN" --demo -c "$TMP/nvmond.conf" --db "$DB" probe --device demo1 --device demo2 \
	--preset seq1m-q8 --json > "$TMP/cli.json" 2> "$TMP/cli.err" ||
	fail "nvmond probe --device --device --json: $(cat "$TMP/cli.err")"
jq_py "$(cat "$TMP/cli.json")" "
g = j['group']
assert len(g['members']) == 2 and all(m['state'] == 'done' for m in g['members']), g
assert all(r['trigger'] == 'cli' for r in j['runs']), j['runs']
assert g['skew_ms'] < 10, g
" || fail "CLI group JSON: $(cat "$TMP/cli.json")"
# The CLI refuses the whole group too.
"$NVMOND_BIN" --demo -c "$TMP/nvmond.conf" --db "$DB" probe --device demo1 --device demo1 \
	--preset seq1m-q8 > /dev/null 2>&1
[ $? = 2 ] || fail "the CLI took a drive twice"

stop_daemon
pass
