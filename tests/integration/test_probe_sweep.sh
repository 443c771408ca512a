#!/usr/bin/env bash
# The transfer-size sweep end to end on a demo drive: the real daemon, curl, a
# real SQLite file, and `nvmond probe --preset sweep` on the same database.
# (On a probe file: tests/unit/probe/test_probe_exec.c and the VM's probe test.)
# Env: NVMOND_BIN (ctest).
set -u
. "$(dirname "$0")/lib.sh"
need_tools curl python3

probe_conf sweep <<CONF
# Each point runs at most this long: 36 points in about 18 s.
phase_duration = 500ms
sweep_depth = 8
[device "DEMO980PRO00002"]
probe_budget_day = 100GB
probe_budget_month = 1TB
[daemon]
demo_history = no
CONF
probe_start
D1=$(jq_py "$(http_get /api/v1/devices)" \
	"print([d['id'] for d in j['devices'] if d['serial']=='DEMO980PRO00002'][0])")

out=$(curl -sS --max-time 10 -o "$TMP/post.out" -w '%{http_code}' \
	-H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
	-d '{"preset":"sweep"}' "$URL/api/v1/devices/$D1/probes")
[ "$out" = 202 ] || fail "POST sweep: $out $(cat "$TMP/post.out")"
ID=$(jq_py "$(cat "$TMP/post.out")" "print(j['id'])")
for _ in $(seq 600); do
	J=$(http_get "/api/v1/probes/$ID")
	[ "$(jq_py "$J" "print(j['state'])")" != running ] && break
	sleep 0.1
done
# Every size from the demo drive's 512-byte LBAs to 64 MiB, reads then writes,
# at sweep_depth; the points agree with the phases they come from; small
# transfers are bound by IOPS, large ones reach the drive's sequential rate.
jq_py "$J" "
assert j['state'] == 'done', (j['state'], j['reason'])
s = j['sweep']
sizes = [512 << i for i in range(18)]
assert s['depth'] == 8, s['depth']
for d in ('read', 'write'):
    assert [p['block_size'] for p in s[d]] == sizes, (d, [p['block_size'] for p in s[d]])
ph = j['phases']
assert len(ph) == 36 and [p['op'] for p in ph] == ['read'] * 18 + ['write'] * 18
assert all(p['depth'] == 8 and p['elapsed_ms'] <= 600 for p in ph)
for p, q in zip(ph[:18], s['read']):
    assert abs(q['mb_s'] - p['read']['mb_per_s']) < 1e-6 and q['iops'] == p['read']['iops']
    assert 0 < q['lat_p50_us'] <= q['lat_p99_us'] <= q['lat_p999_us'] <= q['lat_max_us']
for p, q in zip(ph[18:], s['write']):
    assert abs(q['mb_s'] - p['write']['mb_per_s']) < 1e-6
rd = [p['mb_s'] for p in s['read']]
wr = [p['mb_s'] for p in s['write']]
assert rd[0] < 200 and rd[-1] > 6000, rd
assert wr[0] < 400 and wr[-1] > 3000, wr
assert all(b >= a * 0.9 for a, b in zip(rd, rd[1:])), rd
assert s['read'][0]['iops'] > s['read'][-1]['iops'] * 100
assert j['bytes_written'] == sum(p['write']['bytes'] for p in ph)
assert j['bytes_written'] <= 18 * (256 << 20)
" || fail "sweep result: $(jq_py "$J" "print(j.get('sweep'), j['state'], j['reason'])")"

# The CLI: one row per size with read and write MB/s and IOPS.
"$NVMOND_BIN" --demo -c "$TMP/nvmond.conf" --db "$DB" probe --device demo1 --preset sweep \
	> "$TMP/cli.txt" 2> "$TMP/cli.err" || fail "nvmond probe --preset sweep: $(cat "$TMP/cli.err")"
grep -q "transfer-size sweep, queue depth 8" "$TMP/cli.txt" || fail "cli: $(cat "$TMP/cli.txt")"
for size in "512 B" "4 KiB" "1 MiB" "64 MiB"; do
	grep -qE "^ *$size +[0-9.]+ +[0-9]+ +[0-9.]+ +[0-9]+ " "$TMP/cli.txt" ||
		fail "cli row $size: $(cat "$TMP/cli.txt")"
done
[ "$(grep -cE '^ *[0-9]+ (B|KiB|MiB) ' "$TMP/cli.txt")" = 18 ] || fail "cli rows: $(cat "$TMP/cli.txt")"
stop_daemon
pass
